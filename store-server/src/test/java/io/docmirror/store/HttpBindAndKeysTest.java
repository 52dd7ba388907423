package io.docmirror.store;

import io.docmirror.store.server.StoreHttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Which addresses may go without keys, and which keys are good enough (issue 27, defect 7): only 127.0.0.1 and ::1
 * count as local (docs/http-api.md says why); other loopback addresses such as 127.0.0.2 need a key like any other
 * address, and a weak or malformed key is refused naming the option and the rule.
 */
class HttpBindAndKeysTest {
    private static final String PRIMARY_KEY = "Zm9yLXRlc3RzLW9ubHk6IG5vdC1hLXJlYWwta2V5";

    @TempDir
    Path dataDir;

    private EmbeddedStore embedded;

    @BeforeEach
    void setUp() {
        embedded = EmbeddedStore.open(dataDir, StoreConfig.defaults().withSyncWrites(false));
    }

    @AfterEach
    void tearDown() {
        embedded.close();
    }

    @Test
    void otherLoopbackAddressesNeedAKey() throws Exception {
        for (String bind : new String[] {"127.0.0.2", "127.1.2.3", "::ffff:127.0.0.2", "0.0.0.0"}) {
            assertThatThrownBy(() -> StoreHttpServer.start(embedded, StoreConfig.defaults().withHttp(bind, 0)))
                    .as(bind)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("Invalid value " + bind + " for configuration store.http.bind: listening on an "
                            + "address other than 127.0.0.1 or ::1 (other loopback addresses included) requires "
                            + "store.http.primary-key");
        }

        try (StoreHttpServer withKey = StoreHttpServer.start(embedded, StoreConfig.defaults().withHttp("127.0.0.2", 0)
                .withKeys(PRIMARY_KEY, null))) {
            RawHttp.Response anonymous = RawHttp.request("GET", "/containers").sendTo("127.0.0.2", withKey.port());
            RawHttp.Response keyed = RawHttp.request("GET", "/containers")
                    .header("Authorization", "Bearer " + PRIMARY_KEY).sendTo("127.0.0.2", withKey.port());
            assertThat(anonymous.status()).as(anonymous.toString()).isEqualTo(401);
            assertThat(keyed.status()).as(keyed.toString()).isEqualTo(200);
        }
    }

    /** The emulator's key is published: accepted on another address, it would let anyone who reaches it write. */
    @Test
    void theEmulatorKeyIsRefusedOnAnAddressOtherThanTheLocalOnes() throws Exception {
        for (String bind : new String[] {"127.0.0.2", "0.0.0.0"}) {
            StoreConfig config = StoreConfig.fromProperties(Map.of("store.http.bind", bind, "store.http.primary-key",
                    PRIMARY_KEY, "store.http.accept-emulator-key", "true"));
            assertThatThrownBy(() -> StoreHttpServer.start(embedded, config.withHttp(bind, 0))).as(bind)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("Invalid value true for configuration store.http.accept-emulator-key: the Cosmos DB "
                            + "emulator's key is published, so it would give anyone who reaches " + bind
                            + " read-write access; accept it only when store.http.bind is 127.0.0.1 or ::1");
        }
        StoreConfig local = StoreConfig.fromProperties(Map.of("store.http.accept-emulator-key", "true"));
        try (StoreHttpServer server = StoreHttpServer.start(embedded, local.withHttp("127.0.0.1", 0))) {
            assertThat(RawHttp.request("GET", "/containers").send(server.port()).status()).isEqualTo(200);
        }
    }

    @Test
    void theLocalAddressesStartWithoutKeys() throws Exception {
        for (String bind : new String[] {"127.0.0.1", "localhost"}) {
            try (StoreHttpServer server = StoreHttpServer.start(embedded, StoreConfig.defaults().withHttp(bind, 0))) {
                assertThat(RawHttp.request("GET", "/containers").send(server.port()).status()).as(bind).isEqualTo(200);
            }
        }
    }

    @Test
    void weakOrMalformedKeysAreRefused() {
        Map<String, String> refusals = Map.of(
                "primary-secret", "must be 32 to 512 characters long",
                "k1", "must be 32 to 512 characters long",
                PRIMARY_KEY + " ", "must be base64 or base64url: only A-Z a-z 0-9 + / - _, with '=' padding at the "
                        + "end only",
                PRIMARY_KEY + "\u00e9", "must be base64 or base64url",
                "[" + PRIMARY_KEY + "]", "must be base64 or base64url");
        for (Map.Entry<String, String> refusal : refusals.entrySet()) {
            assertThatThrownBy(() -> StoreConfig.fromProperties(Map.of("store.http.primary-key", refusal.getKey())))
                    .as(refusal.getKey())
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("Invalid value (hidden, ")
                    .hasMessageContaining("for configuration store.http.primary-key: " + refusal.getValue())
                    .hasMessageNotContaining(refusal.getKey());
        }
        assertThatThrownBy(() -> StoreConfig.fromProperties(Map.of("store.http.primary-key", PRIMARY_KEY,
                "store.http.read-only-key", "reader-secret")))
                .hasMessageContaining("for configuration store.http.read-only-key: must be 32 to 512 characters long");
    }
}
