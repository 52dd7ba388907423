package io.docmirror.store;

import io.docmirror.store.http.HttpStoreClient;
import io.docmirror.store.server.StoreHttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Optional;

import static io.docmirror.store.StoreContractTest.assertError;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Keys on the HTTP API: a missing or wrong key gets 401 and changes nothing; a read-only key only reads. */
class StoreHttpAuthTest {
    static final String PRIMARY_KEY = StoreConfigTest.PRIMARY_KEY;
    static final String READ_ONLY_KEY = StoreConfigTest.READ_ONLY_KEY;

    @TempDir
    Path dataDir;

    EmbeddedStore embedded;
    StoreHttpServer server;

    @BeforeEach
    void setUp() throws Exception {
        embedded = EmbeddedStore.open(dataDir, StoreConfig.defaults(), TestingClock.atEpochSecond(1_767_225_600), false);
        embedded.createContainer(ContainerProperties.of("orders", "/customerId"));
        server = StoreHttpServer.start(embedded, StoreConfig.defaults().withHttp("127.0.0.1", 0)
                .withKeys(PRIMARY_KEY, READ_ONLY_KEY));
    }

    @AfterEach
    void tearDown() {
        server.close();
        embedded.close();
    }

    @Test
    void primaryKeyReadsAndWrites() {
        try (HttpStoreClient client = new HttpStoreClient(server.baseUri(), Optional.of(PRIMARY_KEY))) {
            client.createItem("orders", "{\"id\":\"o1\",\"customerId\":\"c1\"}");
            assertThat(client.readItem("orders", PartitionKey.of("c1"), "o1").id()).isEqualTo("o1");
        }
    }

    @Test
    void missingOrWrongKeyIsUnauthorizedAndChangesNothing() {
        try (HttpStoreClient anonymous = new HttpStoreClient(server.baseUri(), Optional.empty());
                HttpStoreClient wrong = new HttpStoreClient(server.baseUri(), Optional.of("guessguessguessguessguessguessguess"))) {
            assertError(() -> anonymous.createItem("orders", "{\"id\":\"o1\",\"customerId\":\"c1\"}"), 401,
                    "Missing 'Authorization: Bearer <key>' header");
            assertError(() -> wrong.createItem("orders", "{\"id\":\"o1\",\"customerId\":\"c1\"}"), 401,
                    "The key in the Authorization header is not valid");
            assertError(() -> wrong.listContainers(), 401, "not valid");
        }
        assertThat(embedded.findItem("orders", PartitionKey.of("c1"), "o1")).isEmpty();
    }

    @Test
    void readOnlyKeyCannotWrite() {
        embedded.createItem("orders", "{\"id\":\"o1\",\"customerId\":\"c1\"}");
        try (HttpStoreClient reader = new HttpStoreClient(server.baseUri(), Optional.of(READ_ONLY_KEY))) {
            assertThat(reader.readItem("orders", PartitionKey.of("c1"), "o1").id()).isEqualTo("o1");
            assertError(() -> reader.deleteItem("orders", PartitionKey.of("c1"), "o1"), 403,
                    "The read-only key cannot DELETE; use the primary key");
        }
        assertThat(embedded.findItem("orders", PartitionKey.of("c1"), "o1")).isPresent();
    }

    @Test
    void nonLoopbackAddressRequiresAKey() {
        assertThatThrownBy(() -> StoreHttpServer.start(embedded, StoreConfig.defaults().withHttp("0.0.0.0", 0)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Invalid value 0.0.0.0 for configuration store.http.bind: listening on an address other "
                        + "than 127.0.0.1 or ::1 (other loopback addresses included) requires store.http.primary-key");
    }

    @Test
    void keysNeverAppearInTheConfigsText() {
        assertThat(StoreConfig.defaults().withKeys(PRIMARY_KEY, READ_ONLY_KEY).toString())
                .doesNotContain(PRIMARY_KEY).doesNotContain(READ_ONLY_KEY);
    }
}
