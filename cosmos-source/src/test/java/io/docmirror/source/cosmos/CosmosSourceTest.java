package io.docmirror.source.cosmos;

import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosDatabase;
import com.azure.cosmos.models.CosmosContainerProperties;
import com.azure.cosmos.models.CosmosItemRequestOptions;
import com.azure.cosmos.models.PartitionKey;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.mirror.ContainerStatus;
import io.docmirror.mirror.FeedMirror;
import io.docmirror.mirror.MirrorActivity;
import io.docmirror.mirror.MirrorConfig;
import io.docmirror.mirror.reconcile.ReconcileReport;
import io.docmirror.mirror.reconcile.Reconciler;
import io.docmirror.mirror.source.ChangeSource;
import io.docmirror.mirror.source.Checkpoint;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.StoreConfig;
import io.docmirror.store.StoreErrorCode;
import io.docmirror.store.StoreException;
import io.docmirror.store.StoreJson;
import io.docmirror.store.TestingCosmosGateway;
import io.docmirror.store.changelog.ChangeEvent;
import io.docmirror.store.server.StoreHttpServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

/**
 * The mirror following a Cosmos DB account through the official Java SDK (gateway mode, TLS): docmirror's store
 * serving its Cosmos DB routes is the account, written through the SDK, and the mirror is checked against the store
 * behind it with docmirror's reconcile, which must find it exact.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CosmosSourceTest {
    /** Numbers a double cannot hold: past 2^53, more digits than 17, beyond the double range. */
    private static final String EXACT_NUMBERS = "{\"id\":\"exact\",\"customerId\":\"c1\",\"big\":9007199254740993,"
            + "\"tenth\":0.1000000000000000055511151231257827,\"huge\":1e400}";
    /** Small batches, so that a load takes several reads and commits. */
    private static final MirrorConfig CONFIG = MirrorConfig.defaults().withBatch(10, Duration.ofMinutes(1));

    private TestingCosmosGateway gateway;
    private String key;
    private EmbeddedStore store;
    private StoreHttpServer server;
    private CosmosClient client;
    private Path work;

    @BeforeAll
    void start(@TempDir Path directory) throws Exception {
        // Before the SDK reads any JSON in this JVM (the writing client below included), as the CLI does.
        ExactSdkNumbers.install();
        work = directory;
        gateway = TestingCosmosGateway.start(directory);
        key = gateway.primaryKey;
        store = gateway.store;
        server = gateway.server;
        client = gateway.client;
    }

    @AfterAll
    void stop() {
        if (gateway != null) {
            gateway.close();
        }
    }

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void theMirrorOfAnAccountIsExactThroughItsLoadUpdatesDeletesAndARestart() throws IOException {
        CosmosDatabase shop = database(client, "shop");
        CosmosContainer orders = mirroredContainer(shop, "orders", "/customerId");
        CosmosContainer lines = mirroredContainer(shop, "lines", "/orderId");
        shop.createContainer(new CosmosContainerProperties("notes", "/id"));
        for (int index = 0; index < 40; index++) {
            orders.createItem(order("o" + index, "c" + index % 9, index));
            lines.createItem(line("l" + index, "o" + index % 5));
        }
        for (int index = 0; index < 5; index++) {
            orders.upsertItem(order("o" + index, "c" + index % 9, 100 + index));
        }
        orders.deleteItem("o39", new PartitionKey("c" + 39 % 9), new CosmosItemRequestOptions());
        orders.createItem(StoreJson.mapper().readTree(EXACT_NUMBERS));
        Path mirror = work.resolve("mirror");

        // Changes while the containers load: items already loaded and not yet loaded, changed, deleted, created.
        ChangeSource.Opener writesDuringTheLoad;
        try (CosmosAccount account = CosmosAccount.connect(server.baseUri(), key, Optional.of("shop"))) {
            ChangeSource.Opener opener = account.opener();
            AtomicBoolean written = new AtomicBoolean();
            writesDuringTheLoad = (container, from) -> !container.id().equals("shop.orders")
                    ? opener.open(container, from) : new WritingOnSecondRead(opener.open(container, from), () -> {
                if (written.getAndSet(true)) {
                    return;
                }
                for (int index = 5; index < 40; index += 3) {
                    orders.upsertItem(order("o" + index, "c" + index % 9, 1000 + index));
                }
                for (int index = 6; index < 40; index += 7) {
                    orders.deleteItem("o" + index, new PartitionKey("c" + index % 9), new CosmosItemRequestOptions());
                }
                orders.createItem(order("during", "c1", 1));
            });
            try (FeedMirror feedMirror = new FeedMirror(account, writesDuringTheLoad, mirror, CONFIG,
                    FlattenerConfig::defaults, Clock.systemUTC())) {
                // At least each document the containers end with; how many more depends on what the load read.
                assertThat(feedMirror.sync().events()).isGreaterThanOrEqualTo(36 + 39);
            }
            assertExact(store, mirror, "shop.orders", 40 - 1 + 1 + 1 - 5);
            assertExact(store, mirror, "shop.lines", 40);

            // Streaming on: updates, replaces of the exact numbers, deletes, creates.
            for (int index = 0; index < 40; index += 4) {
                orders.upsertItem(order("o" + index, "c" + index % 9, 2000 + index));
            }
            orders.upsertItem(((ObjectNode) StoreJson.mapper().readTree(EXACT_NUMBERS)).put("note", "replaced"));
            orders.deleteItem("o1", new PartitionKey("c1"), new CosmosItemRequestOptions());
            orders.createItem(order("after", "c2", 2));
            lines.deleteItem("l3", new PartitionKey("o3"), new CosmosItemRequestOptions());
            assertThat(sync(account, mirror).events()).isEqualTo(10 + 1 + 1 + 1 + 1);
            // o20, deleted during the load, is back: an upsert creates it again.
            assertExact(store, mirror, "shop.orders", 37);
        }

        // A restart: a new client and mirror go on from the committed checkpoint, nothing read twice.
        orders.deleteItem("o2", new PartitionKey("c2"), new CosmosItemRequestOptions());
        lines.upsertItem(line("l4", "o4").put("quantity", 7));
        try (CosmosAccount account = CosmosAccount.connect(server.baseUri(), key, Optional.empty());
                FeedMirror feedMirror = new FeedMirror(account, account.opener(), mirror, CONFIG,
                        FlattenerConfig::defaults, Clock.systemUTC())) {
            feedMirror.sync();
            // Every database of the account this time (other tests' too): the two changes of shop, nothing again.
            assertThat(feedMirror.activity().stream().filter(activity -> activity.container().startsWith("shop."))
                    .mapToLong(MirrorActivity::events).sum()).isEqualTo(2);
            // Caught up, a sync finds nothing to commit: the position alone is committed only when it moved.
            FeedMirror.SyncResult idle = feedMirror.sync();
            assertThat(idle.events()).isZero();
            assertThat(idle.commits()).isZero();
        }
        assertExact(store, mirror, "shop.orders", 36);
        assertExact(store, mirror, "shop.lines", 39);
        assertThat(ContainerStatus.of(mirror, store, store.readContainer("shop.orders"), Clock.systemUTC())
                .cosmosFeedMode()).startsWith("Cosmos DB change feed, all versions and deletes");
    }

    /**
     * An account without all versions and deletes (docmirror's store configured as one): the mirror falls back to the
     * latest version, loads and streams exactly, but a delete never reaches it, as {@code status} says.
     */
    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void anAccountWithoutAllVersionsAndDeletesIsMirroredFromTheLatestVersionWithoutItsDeletes(
            @TempDir Path directory) throws Exception {
        try (TestingCosmosGateway latestOnly = TestingCosmosGateway.start(directory,
                StoreConfig.defaults().withCosmosAllVersionsAndDeletes(false))) {
            CosmosContainer orders = mirroredContainer(database(latestOnly.client, "shop"), "orders", "/customerId");
            for (int index = 0; index < 40; index++) {
                orders.createItem(order("o" + index, "c" + index % 9, index));
            }
            for (int index = 0; index < 5; index++) {
                orders.upsertItem(order("o" + index, "c" + index % 9, 100 + index));
            }
            orders.createItem(StoreJson.mapper().readTree(EXACT_NUMBERS));
            Path mirror = directory.resolve("mirror");

            try (CosmosAccount account = CosmosAccount.connect(latestOnly.server.baseUri(), latestOnly.primaryKey,
                    Optional.of("shop"))) {
                assertThat(sync(account, mirror).events()).isEqualTo(41);
                assertExact(latestOnly.store, mirror, "shop.orders", 41);

                // Updates, twice for some items between two reads (only the newer version comes), and a create.
                for (int index = 0; index < 40; index += 4) {
                    orders.upsertItem(order("o" + index, "c" + index % 9, 2000 + index));
                    orders.upsertItem(order("o" + index, "c" + index % 9, 3000 + index));
                }
                orders.createItem(order("after", "c2", 2));
                assertThat(sync(account, mirror).events()).isEqualTo(10 + 1);
                assertExact(latestOnly.store, mirror, "shop.orders", 42);

                // A delete is in no latest-version feed: o7 stays in the mirror. A later write of its partition
                // key value moves the mirror past the delete, and reconcile then names o7.
                orders.deleteItem("o7", new PartitionKey("c7"), new CosmosItemRequestOptions());
                orders.upsertItem(order("o16", "c7", 16_000));
                assertThat(sync(account, mirror).events()).isEqualTo(1);
            }
            ReconcileReport report = new Reconciler(latestOnly.store, mirror, Clock.systemUTC(), 10)
                    .reconcile("shop.orders");
            assertThat(report.differences()).extracting(ReconcileReport.Difference::id,
                            ReconcileReport.Difference::what)
                    .containsExactly(tuple("o7", "in the mirror, not in the store"));
            assertThat(ContainerStatus.of(mirror, latestOnly.store, latestOnly.store.readContainer("shop.orders"),
                    Clock.systemUTC()).cosmosFeedMode()).isEqualTo("Cosmos DB change feed, latest version (deletes "
                    + "and intermediate versions are NOT mirrored: a deleted item stays in the mirror, and an item "
                    + "changed twice between reads shows only its newer version)");
        }
    }

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void numbersReachTheMirrorWithEveryDigit() throws IOException {
        String name = "numbers" + UUID.randomUUID().toString().substring(0, 8);
        CosmosContainer orders = mirroredContainer(database(client, name), "orders", "/customerId");
        orders.createItem(StoreJson.mapper().readTree(EXACT_NUMBERS));
        orders.upsertItem(((ObjectNode) StoreJson.mapper().readTree(EXACT_NUMBERS)).put("note", "replaced"));
        assertThat(store.readItem(name + ".orders", io.docmirror.store.PartitionKey.of("c1"), "exact").json())
                .as("the SDK writes the numbers as they were read").contains("1e400");

        List<ChangeEvent> events = new ArrayList<>();
        try (CosmosAccount account = CosmosAccount.connect(server.baseUri(), key, Optional.of(name));
                ChangeSource source = account.opener().open(account.listContainers().get(0), Checkpoint.NONE)) {
            ChangeSource.Changes changes;
            do {
                changes = source.read(100);
                events.addAll(changes.events());
            } while (!changes.caughtUp());
        }
        assertThat(events).hasSize(1);
        String document = new String(events.get(0).documentJson().orElseThrow(), StandardCharsets.UTF_8);
        assertThat(document).contains("\"big\":9007199254740993", "\"tenth\":0.1000000000000000055511151231257827",
                "\"huge\":1e400", "\"note\":\"replaced\"");
    }

    /**
     * A container deleted and created again while the daemon streams from the account is another container (another
     * {@code _rid}, LSNs from 1 again): the daemon drops the old one's mirror and mirrors the new one from its first
     * change, as it does from the store.
     */
    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void aContainerRecreatedWhileTheDaemonStreamsIsMirroredFromItsFirstChange() throws Exception {
        CosmosDatabase again = database(client, "again");
        CosmosContainer events = mirroredContainer(again, "events", "/pk");
        for (int index = 0; index < 4; index++) {
            events.createItem(StoreJson.mapper().createObjectNode().put("id", "old" + index).put("pk", "p"));
        }
        Path mirror = work.resolve("recreated-mirror");
        try (CosmosAccount account = CosmosAccount.connect(server.baseUri(), key, Optional.of("again"))) {
            // Batches that commit within half a second, few changes as they hold.
            FeedMirror daemon = new FeedMirror(account, account.opener(), mirror,
                    MirrorConfig.defaults().withBatch(10, Duration.ofMillis(500)), FlattenerConfig::defaults,
                    Clock.systemUTC());
            Thread thread = new Thread(() -> {
                try {
                    daemon.run();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "mirror-daemon");
            thread.start();
            try {
                awaitMirrored(mirror, "again.events", 4);
                events.delete();
                events = mirroredContainer(again, "events", "/pk");
                // Six changes: LSNs 1 to 4 are at or below the old container's positions, 5 and 6 beyond them.
                for (int index = 0; index < 6; index++) {
                    events.createItem(StoreJson.mapper().createObjectNode().put("id", "new" + index).put("pk", "p"));
                }
                awaitMirrored(mirror, "again.events", 6);
            } finally {
                daemon.stop();
                thread.join(30_000);
                daemon.close();
            }
        }
        assertExact(store, mirror, "again.events", 6);
    }

    /** Waits until the mirror of {@code container} equals the store's, with {@code documents} documents. */
    private void awaitMirrored(Path mirror, String container, int documents) throws InterruptedException {
        long started = System.nanoTime();
        String seen = io.docmirror.store.StoreTesting.await("the mirror of " + container + " exact with " + documents
                + " documents", Duration.ofSeconds(90), () -> {
                    try {
                        ReconcileReport report = new Reconciler(store, mirror, Clock.systemUTC(), 10)
                                .reconcile(container);
                        return report.exact() + ", " + report.feedRanges().stream()
                                .mapToLong(range -> range.mirror().count()).sum() + " mirrored, differences "
                                + report.differences();
                    } catch (RuntimeException e) {
                        return "cannot reconcile yet: " + e.getMessage();
                    }
                }, report -> report.startsWith("true, " + documents + " mirrored"));
        System.out.printf("mirror of %s after %d ms: %s%n", container, (System.nanoTime() - started) / 1_000_000,
                seen);
    }

    @Test
    void aWrongKeyIsRefusedNamingTheEndpoint() {
        assertThatThrownBy(() -> CosmosAccount.connect(server.baseUri(), TestingCosmosGateway.randomKey(), Optional.empty()))
                .isInstanceOfSatisfying(StoreException.class, e -> {
                    assertThat(e.code()).isEqualTo(StoreErrorCode.UNAUTHORIZED);
                    assertThat(e.getMessage()).isEqualTo("Cannot connect to the Cosmos DB account at "
                            + server.baseUri() + ": it refused the key (HTTP 401); give the account's primary key "
                            + "or read-only key with --key");
                });
    }

    private static void assertExact(EmbeddedStore store, Path mirror, String container, int documents) {
        ReconcileReport report = new Reconciler(store, mirror, Clock.systemUTC(), 10).reconcile(container);
        assertThat(report.differences()).as("differences of %s", container).isEmpty();
        assertThat(report.exact()).isTrue();
        assertThat(report.feedRanges().stream().mapToLong(range -> range.store().count()).sum())
                .as("documents of %s compared", container).isEqualTo(documents);
        assertThat(report.feedRanges().stream().mapToLong(range -> range.mirror().count()).sum())
                .as("documents of the mirror of %s", container).isEqualTo(documents);
    }

    /** One sync of the account's containers into {@code mirror}, by a mirror made for it. */
    private static FeedMirror.SyncResult sync(CosmosAccount account, Path mirror) {
        try (FeedMirror feedMirror = new FeedMirror(account, account.opener(), mirror, CONFIG,
                FlattenerConfig::defaults, Clock.systemUTC())) {
            return feedMirror.sync();
        }
    }

    private static CosmosDatabase database(CosmosClient client, String name) {
        client.createDatabase(name);
        return client.getDatabase(name);
    }

    private static CosmosContainer mirroredContainer(CosmosDatabase database, String name, String partitionKey) {
        CosmosContainerProperties definition = new CosmosContainerProperties(name, partitionKey);
        definition.setAnalyticalStoreTimeToLiveInSeconds(-1);
        database.createContainer(definition);
        return database.getContainer(name);
    }

    private static ObjectNode order(String id, String customer, int total) {
        return StoreJson.mapper().createObjectNode().put("id", id).put("customerId", customer).put("total", total);
    }

    private static ObjectNode line(String id, String order) {
        return StoreJson.mapper().createObjectNode().put("id", id).put("orderId", order).put("sku", "s-" + id);
    }

    /** A change source that runs {@code writes} once, before its second read: changes made while it loads. */
    private static final class WritingOnSecondRead implements ChangeSource {
        private final ChangeSource source;
        private final Runnable writes;
        private int reads;

        WritingOnSecondRead(ChangeSource source, Runnable writes) {
            this.source = source;
            this.writes = writes;
        }

        @Override
        public Changes read(int maxEvents) {
            if (++reads == 2) {
                writes.run();
            }
            return source.read(maxEvents);
        }

        @Override
        public Checkpoint checkpoint() {
            return source.checkpoint();
        }

        @Override
        public boolean commitsPositionAlone() {
            return source.commitsPositionAlone();
        }

        @Override
        public String gapRemedy(String container) {
            return source.gapRemedy(container);
        }

        @Override
        public void close() {
            source.close();
        }
    }
}
