package io.docmirror.store;

import com.fasterxml.jackson.databind.JsonNode;
import io.docmirror.store.http.HttpStoreClient;
import io.docmirror.store.http.RemoteSnapshot;
import io.docmirror.store.server.StoreHttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What the HTTP API adds to a snapshot: readers in other processes open it by id, the server holds a bounded number
 * under leases that reads renew and releases expired ones itself, and every malformed request is a 400.
 */
class SnapshotsOverHttpTest {
    private static final String PRIMARY_KEY = "c25hcHNob3RzLW92ZXItaHR0cC10ZXN0LWtleS0xMjM0NTY=";
    private static final String READ_ONLY_KEY = "cmVhZC1vbmx5LXNuYXBzaG90cy10ZXN0LWtleS0xMjM0NTY=";

    @TempDir
    Path dataDir;

    private EmbeddedStore store;
    private StoreHttpServer server;

    private HttpStoreClient start(StoreConfig config) throws Exception {
        store = EmbeddedStore.open(dataDir, StoreConfig.defaults().withSyncWrites(false));
        store.createContainer(ContainerProperties.of("orders", "/customerId").withLogPartitions(2));
        for (int index = 0; index < 20; index++) {
            store.createItem("orders", SnapshotContractTest.order("o" + index, index % 5, "first"));
        }
        server = StoreHttpServer.start(store, config.withHttp("127.0.0.1", 0));
        return new HttpStoreClient(server.baseUri(), Optional.empty());
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
        if (store != null) {
            store.close();
        }
    }

    @Test
    void readersInOtherProcessesOpenTheDriversSnapshotByItsId() throws Exception {
        HttpStoreClient driver = start(StoreConfig.defaults());
        try (RemoteSnapshot created = driver.createSnapshot("orders")) {
            store.createItem("orders", SnapshotContractTest.order("late", 1, "late"));
            // A task gets the base URL, the key and the id, and reads intervals without creating anything.
            HttpStoreClient task = new HttpStoreClient(server.baseUri(), Optional.empty());
            RemoteSnapshot reader = task.snapshotReader("orders", created.id());

            assertThat(store.openSnapshots()).isEqualTo(1);
            assertThat(reader.id()).isEqualTo(created.id());
            for (int logPartition = 0; logPartition < 2; logPartition++) {
                assertThat(reader.lsn(logPartition)).isEqualTo(created.lsn(logPartition));
                assertThat(SnapshotContractTest.readAll(reader, reader.split(logPartition, 3), 2))
                        .isEqualTo(SnapshotContractTest.readAll(created, List.of(
                                SnapshotInterval.wholePartition(logPartition)), 100))
                        .noneMatch(event -> event.contains("late"));
            }
            assertThat(reader.lease()).isEqualTo(Duration.ofMillis(StoreConfig.defaults().httpSnapshotMaxLease()
                    .toMillis()));
            assertThat(reader.renew()).isAfterOrEqualTo(created.expiresAt());
        }
        assertThat(store.openSnapshots()).isZero();
    }

    @Test
    void aLeaseThatExpiresIsReleasedByTheServer() throws Exception {
        HttpStoreClient client = start(StoreConfig.defaults().withSnapshots(4, Duration.ofMinutes(10)));
        // Created by a client that then died: nobody renews or reads it.
        RawHttp.Response created = RawHttp.request("POST", "/containers/orders/snapshots?leaseMs=300")
                .send(server.port());
        assertThat(created.status()).as(created.toString()).isEqualTo(201);
        JsonNode description = StoreJson.mapper().readTree(created.body());
        String id = description.get("id").asText();
        assertThat(description.get("leaseMs").asLong()).isEqualTo(300);
        assertThat(description.get("lsns")).hasSize(2);
        assertThat(store.openSnapshots()).isEqualTo(1);

        // The server's own sweep releases it.
        waitFor("the expired snapshot to be released", () -> store.openSnapshots() == 0);
        assertThatThrownBy(() -> client.snapshotReader("orders", id))
                .isInstanceOfSatisfying(StoreException.class, e -> {
                    assertThat(e.code()).isEqualTo(StoreErrorCode.NOT_FOUND);
                    assertThat(e.getMessage()).contains("Snapshot " + id + " of container orders does not exist")
                            .contains("lease expired");
                });
    }

    @Test
    void aSnapshotItsCreatorHoldsOpenOutlivesItsLease() throws Exception {
        HttpStoreClient driver = start(StoreConfig.defaults());
        Duration lease = Duration.ofSeconds(2);
        try (RemoteSnapshot snapshot = driver.createSnapshot("orders", lease)) {
            Instant first = snapshot.expiresAt();
            // The creator renews in the background, unasked, while no one reads.
            waitFor("two leases' worth of renewals", () -> snapshot.expiresAt().isAfter(first.plus(lease.multipliedBy(2))));

            RemoteSnapshot reader = new HttpStoreClient(server.baseUri(), Optional.empty())
                    .snapshotReader("orders", snapshot.id());
            assertThat(SnapshotContractTest.readAll(reader, reader.split(0, 1), 50)).isNotEmpty();
        }
        assertThat(store.openSnapshots()).isZero();
        // A client that closes stops renewing: what it still held is released a lease later by the server.
        RemoteSnapshot abandoned = driver.createSnapshot("orders", Duration.ofMillis(300));
        driver.close();
        waitFor("the abandoned snapshot to be released", () -> store.openSnapshots() == 0);
        abandoned.close();
    }

    @Test
    void aLeaseLongerThanTheServersIsShortenedToIt() throws Exception {
        HttpStoreClient client = start(StoreConfig.defaults().withSnapshots(4, Duration.ofSeconds(30)));
        try (RemoteSnapshot snapshot = client.createSnapshot("orders", Duration.ofDays(1))) {
            assertThat(snapshot.lease()).isEqualTo(Duration.ofSeconds(30));
        }
    }

    @Test
    void holdingAsManySnapshotsAsAllowedRefusesOneMoreUntilOneIsReleased() throws Exception {
        HttpStoreClient client = start(StoreConfig.defaults().withSnapshots(2, Duration.ofMinutes(10)));
        RemoteSnapshot first = client.createSnapshot("orders");
        RemoteSnapshot second = client.createSnapshot("orders");

        RawHttp.Response refused = RawHttp.request("POST", "/containers/orders/snapshots").send(server.port());
        assertThat(refused.status()).as(refused.toString()).isEqualTo(429);
        JsonNode error = StoreJson.mapper().readTree(refused.body());
        assertThat(error.get("code").asText()).isEqualTo("TOO_MANY_REQUESTS");
        assertThat(error.get("message").asText()).contains("holds 2 snapshots")
                .contains("store.http.max-snapshots");
        assertThatThrownBy(() -> client.createSnapshot("orders")).isInstanceOfSatisfying(StoreException.class,
                e -> assertThat(e.isRetriable()).isTrue());
        assertThat(store.openSnapshots()).isEqualTo(2);

        first.close();
        try (RemoteSnapshot third = client.createSnapshot("orders")) {
            assertThat(third.id()).isNotIn(first.id(), second.id());
        }
        second.close();
        assertThat(store.openSnapshots()).isZero();
    }

    @Test
    void closingTheServerReleasesEverySnapshotItHolds() throws Exception {
        HttpStoreClient client = start(StoreConfig.defaults());
        client.createSnapshot("orders");
        client.createSnapshot("orders");
        assertThat(store.openSnapshots()).isEqualTo(2);

        server.close();

        assertThat(store.openSnapshots()).isZero();
    }

    @Test
    void theReadOnlyKeyReadsASnapshotButCannotCreateOne() throws Exception {
        HttpStoreClient driver = start(StoreConfig.defaults().withKeys(PRIMARY_KEY, READ_ONLY_KEY));
        assertThatThrownBy(() -> driver.createSnapshot("orders")).isInstanceOfSatisfying(StoreException.class,
                e -> assertThat(e.code()).isEqualTo(StoreErrorCode.UNAUTHORIZED));
        HttpStoreClient primary = new HttpStoreClient(server.baseUri(), Optional.of(PRIMARY_KEY));
        HttpStoreClient readOnly = new HttpStoreClient(server.baseUri(), Optional.of(READ_ONLY_KEY));
        try (RemoteSnapshot snapshot = primary.createSnapshot("orders")) {
            RemoteSnapshot reader = readOnly.snapshotReader("orders", snapshot.id());
            assertThat(SnapshotContractTest.readAll(reader, reader.split(0, 2), 5)).isNotEmpty();
            assertThatThrownBy(() -> readOnly.createSnapshot("orders")).isInstanceOfSatisfying(StoreException.class,
                    e -> assertThat(e.code()).isEqualTo(StoreErrorCode.FORBIDDEN));
        }
    }

    @Test
    void everyMalformedRequestIsABadRequestThatSaysWhatIsWrong() throws Exception {
        HttpStoreClient client = start(StoreConfig.defaults());
        try (RemoteSnapshot snapshot = client.createSnapshot("orders")) {
            String path = "/containers/orders/snapshots/" + snapshot.id();
            String items = path + "/partitions/0/items";
            assertAnswer("GET", "/containers/orders/snapshots/not-an-id", 400, "Invalid snapshot id 'not-an-id'");
            assertAnswer("GET", "/containers/orders/snapshots/" + "A".repeat(22), 404, "does not exist");
            assertAnswer("GET", "/containers/other/snapshots/" + snapshot.id(), 404, "does not exist");
            assertAnswer("DELETE", "/containers/orders/snapshots/" + "A".repeat(22), 404, "does not exist");
            assertAnswer("POST", "/containers/missing/snapshots", 404, "missing");
            assertAnswer("POST", "/containers/orders/snapshots?leaseMs=0", 400, "Invalid leaseMs '0'");
            assertAnswer("POST", "/containers/orders/snapshots?leaseMs=-5", 400, "Invalid leaseMs");
            assertAnswer("POST", "/containers/orders/snapshots?leaseMs=1e3", 400, "Invalid leaseMs");
            for (String partition : List.of("abc", "-1", "99999999999", "1.0", "%20")) {
                assertAnswer("GET", path + "/partitions/" + partition + "/intervals", 400, "Invalid log partition");
                assertAnswer("GET", path + "/partitions/" + partition + "/items", 400, "Invalid log partition");
            }
            assertAnswer("GET", path + "/partitions/2/intervals", 400, "log partitions 0 to 1, not 2");
            assertAnswer("GET", path + "/partitions/65535/items", 400, "log partitions 0 to 1, not 65535");
            for (String maxIntervals : List.of("0", "-1", "abc", "")) {
                assertAnswer("GET", path + "/partitions/0/intervals?maxIntervals=" + maxIntervals, 400,
                        "Invalid maxIntervals");
            }
            assertAnswer("GET", items + "?maxItems=0", 400, "Invalid maxItems");
            assertAnswer("GET", items + "?from=", 400, "split point '' is malformed");
            assertAnswer("GET", items + "?from=a%2Bb", 400, "split point 'a+b' is malformed");
            assertAnswer("GET", items + "?until=%00", 400, "is malformed");
            assertAnswer("GET", items + "?from=" + "A".repeat(20_000), 414, "");
            assertAnswer("GET", items + "?from=" + "A".repeat(12_000), 400, "must encode 1 to 8192 bytes");
            assertAnswer("GET", items + "?from=_w&until=AA", 400, "its start is after its end");
            assertAnswer("GET", items + "?continuation=!", 400, "continuation '!' is malformed");
            assertAnswer("GET", items + "?from=_w&continuation=AA", 400, "outside the interval");
            // After all that, the snapshot reads on.
            assertThat(SnapshotContractTest.readAll(snapshot, snapshot.split(0, 2), 5)).isNotEmpty();
        }
    }

    private void assertAnswer(String method, String target, int status, String message) throws Exception {
        RawHttp.Response response = RawHttp.request(method, target).send(server.port());
        assertThat(response.status()).as(method + " " + target + ": " + response).isEqualTo(status);
        assertThat(new String(response.body(), StandardCharsets.UTF_8)).as(method + " " + target).contains(message);
    }

    private static void waitFor(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("Timed out after 20 s waiting for " + what);
            }
            Thread.sleep(50);
        }
    }
}
