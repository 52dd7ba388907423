package io.docmirror.store;

import io.docmirror.store.http.StoreHttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Repeated wrong keys are throttled per client address (issue 27, defect 5): after {@code store.http.login-failures}
 * of them (10) the address gets 429 with Retry-After for {@code store.http.login-lockout-ms}, whatever key it sends,
 * while other addresses are served.
 */
class LoginThrottleOverHttpTest {
    private static final String PRIMARY_KEY = "Zm9yLXRlc3RzLW9ubHk6IG5vdC1hLXJlYWwta2V5";
    private static final String WRONG_KEY = "d3JvbmctYnV0LXdlbGwtZm9ybWVkLWd1ZXNzLTAx";

    @TempDir
    Path dataDir;

    private EmbeddedStore embedded;
    private StoreHttpServer server;

    private void start(Map<String, String> options) throws IOException {
        embedded = EmbeddedStore.open(dataDir, StoreConfig.defaults().withSyncWrites(false));
        server = StoreHttpServer.start(embedded, StoreConfig.fromProperties(options).withHttp("127.0.0.1", 0)
                .withKeys(PRIMARY_KEY, null));
    }

    @AfterEach
    void tearDown() {
        server.close();
        embedded.close();
    }

    @Test
    void anAddressThatSendsTooManyWrongKeysIsLockedOut() throws Exception {
        start(Map.of());
        for (int attempt = 1; attempt <= 10; attempt++) {
            RawHttp.Response wrong = withKey(WRONG_KEY).send(server.port());
            assertThat(wrong.status()).as("attempt %d: %s", attempt, wrong).isEqualTo(401);
        }

        RawHttp.Response locked = withKey(WRONG_KEY).send(server.port());
        RawHttp.Response lockedWithTheRightKey = withKey(PRIMARY_KEY).send(server.port());
        RawHttp.Response otherAddress = withKey(PRIMARY_KEY).sendFrom(InetAddress.getByName("127.0.0.2"), server.port());

        for (RawHttp.Response response : List.of(locked, lockedWithTheRightKey)) {
            assertThat(response.status()).as(response.toString()).isEqualTo(429);
            assertThat(Integer.parseInt(response.header("Retry-After").orElseThrow())).isBetween(1, 60);
            assertThat(response.bodyText()).startsWith("{\"code\":\"TOO_MANY_REQUESTS\",\"status\":429,")
                    .contains("Too many wrong keys from this address", "store.http.login-failures");
        }
        assertThat(otherAddress.status()).as(otherAddress.toString()).isEqualTo(200);
    }

    @Test
    void theLockoutPasses() throws Exception {
        start(Map.of("store.http.login-failures", "3", "store.http.login-lockout-ms", "300"));
        for (int attempt = 1; attempt <= 3; attempt++) {
            assertThat(withKey(WRONG_KEY).send(server.port()).status()).isEqualTo(401);
        }
        List<Integer> statuses = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        int status = 0;
        while (status != 200 && System.nanoTime() < deadline) {
            status = withKey(PRIMARY_KEY).send(server.port()).status();
            statuses.add(status);
        }

        assertThat(statuses).as("statuses while locked out, then after").startsWith(429).endsWith(200)
                .containsOnly(429, 200);
    }

    private static RawHttp withKey(String key) {
        return RawHttp.request("GET", "/containers").header("Authorization", "Bearer " + key);
    }
}
