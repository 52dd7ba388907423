package io.docmirror.mirror;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.flatten.TypePolicy;
import io.docmirror.layout.CatalogPointers;
import io.docmirror.layout.CatalogSettings;
import io.docmirror.layout.ContainerSnapshot;
import io.docmirror.layout.LocalFileIO;
import io.docmirror.layout.MirrorTables;
import io.docmirror.mirror.iceberg.ContainerTables;
import io.docmirror.mirror.source.Checkpoint;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.PartitionKey;
import io.docmirror.store.PartitionKeyValue;
import io.docmirror.store.StoreJson;
import io.docmirror.store.StoreTesting;
import io.docmirror.store.TestingClock;
import io.docmirror.store.changelog.ChangeEvent;
import io.docmirror.store.changelog.Operation;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class FeedMirrorTest {
    private static final long START = 1_700_000_000L;

    @TempDir
    Path work;

    private final TestingClock clock = TestingClock.atEpochSecond(START);
    private EmbeddedStore store;
    private Path mirrorDirectory;

    @BeforeEach
    void openStore() {
        store = StoreTesting.openWithClock(work.resolve("store"), clock);
        store.createContainer(ContainerProperties.of("orders", "/customerId").withAnalyticalTtl(-1));
        mirrorDirectory = work.resolve("mirror");
    }

    @AfterEach
    void closeStore() {
        store.close();
    }

    @Test
    void mirrorsCreatesUpdatesAndDeletesWithChildTablesFollowingTheirDocument() throws Exception {
        store.createItem("orders", """
                {"id":"o1","customerId":"c1","status":"new","total":10,
                 "items":[{"sku":"A","qty":1},{"sku":"B","qty":2}]}""");
        store.createItem("orders", """
                {"id":"o2","customerId":"c2","status":"new","total":5,"items":[{"sku":"C","qty":1}]}""");
        store.createItem("orders", """
                {"id":"o3","customerId":"c1","status":"new","total":7,"items":[]}""");
        sync();
        store.upsertItem("orders", """
                {"id":"o1","customerId":"c1","status":"shipped","total":10,"items":[{"sku":"B","qty":2}]}""");
        store.deleteItem("orders", PartitionKey.of("c2"), "o2");
        sync();

        try (MirrorSql sql = MirrorSql.open(mirrorDirectory, "orders")) {
            assertThat(sql.rows("SELECT id, status, total FROM orders ORDER BY id")).containsExactly(
                    List.of("o1", "shipped", 10L),
                    List.of("o3", "new", 7L));
            assertThat(sql.rows("SELECT _id, _row, sku, qty FROM orders__items ORDER BY _id, _idx")).containsExactly(
                    List.of("o1", "items[0]", "B", 2L));
            assertThat(sql.rows("SELECT id, operation FROM orders_history ORDER BY _lsn, id"))
                    .hasSize(5)
                    .contains(List.of("o2", "DELETE"));
        }
    }

    @Test
    void aFirstMirrorOfAChangeFeedPastTheThresholdIsLoadedFromASnapshotThenFollowsTheFeed() throws Exception {
        writeThirtyUpdateTenDeleteFive();
        MirrorConfig snapshotAbove45 = MirrorConfig.defaults().withSnapshotLoadAbove(45);
        try (FeedMirror mirror = new FeedMirror(store, mirrorDirectory, snapshotAbove45, FlattenerConfig::defaults,
                clock)) {
            // 45 changes: the 25 documents left are read from a snapshot, none of the changes is replayed.
            assertThat(mirror.sync()).isEqualTo(new FeedMirror.SyncResult(25, 0, 0));
            store.upsertItem("orders", "{\"id\":\"o0\",\"customerId\":\"c0\",\"n\":1000}");
            store.createItem("orders", "{\"id\":\"o100\",\"customerId\":\"c1\",\"n\":100}");
            store.deleteItem("orders", PartitionKey.of("c1"), "o11");
            // Then the feed goes on from the snapshot: no change is lost or mirrored twice.
            assertThat(mirror.sync()).isEqualTo(new FeedMirror.SyncResult(0, 3, 1));
        }
        try (MirrorSql sql = MirrorSql.open(mirrorDirectory, "orders")) {
            // o0 = 1000, o1..o4 = 10..40, o10..o29 but o11 = their index, o100 = 100.
            assertThat(sql.rows("SELECT count(*), sum(n)::BIGINT FROM orders")).containsExactly(
                    List.of(25L, 1000L + (10 + 20 + 30 + 40) + (390 - 11) + 100));
            // The history starts at the snapshot: one entry per document then, and the three changes after it.
            assertThat(sql.rows("SELECT count(*), count(DISTINCT id) FROM orders_history"))
                    .containsExactly(List.of(28L, 26L));
        }
    }

    @Test
    void aFirstMirrorOfAChangeFeedBelowTheThresholdReplaysEveryChange() throws Exception {
        writeThirtyUpdateTenDeleteFive();
        try (FeedMirror mirror = new FeedMirror(store, mirrorDirectory,
                MirrorConfig.defaults().withSnapshotLoadAbove(46), FlattenerConfig::defaults, clock)) {
            assertThat(mirror.sync()).isEqualTo(new FeedMirror.SyncResult(0, 45, 1));
        }
        try (MirrorSql sql = MirrorSql.open(mirrorDirectory, "orders")) {
            assertThat(sql.rows("SELECT operation, count(*) FROM orders_history GROUP BY ALL ORDER BY ALL"))
                    .containsExactly(List.of("CREATE", 30L), List.of("DELETE", 5L), List.of("REPLACE", 10L));
        }
    }

    /** 30 orders o0..o29 with n = index, then o0..o9 updated to n = 10 * index, then o5..o9 deleted: 45 changes. */
    private void writeThirtyUpdateTenDeleteFive() {
        for (int index = 0; index < 30; index++) {
            store.createItem("orders", "{\"id\":\"o" + index + "\",\"customerId\":\"c" + (index % 2)
                    + "\",\"n\":" + index + "}");
        }
        for (int index = 0; index < 10; index++) {
            store.upsertItem("orders", "{\"id\":\"o" + index + "\",\"customerId\":\"c" + (index % 2)
                    + "\",\"n\":" + (index * 10) + "}");
        }
        for (int index = 5; index < 10; index++) {
            store.deleteItem("orders", PartitionKey.of("c" + (index % 2)), "o" + index);
        }
    }

    @Test
    void historyKeepsEachVersionsTsAndADeletesCommitSecond() throws Exception {
        store.createItem("orders", "{\"id\":\"o1\",\"customerId\":\"c1\",\"n\":1}");
        clock.advanceSeconds(60);
        store.upsertItem("orders", "{\"id\":\"o1\",\"customerId\":\"c1\",\"n\":2}");
        clock.advanceSeconds(60);
        store.deleteItem("orders", PartitionKey.of("c1"), "o1");
        sync();

        try (MirrorSql sql = MirrorSql.open(mirrorDirectory, "orders")) {
            assertThat(sql.rows("SELECT operation, _ts, json_extract(document, '$._ts')::BIGINT FROM orders_history "
                    + "ORDER BY _lsn")).containsExactly(
                    Arrays.asList("CREATE", START, START),
                    Arrays.asList("REPLACE", START + 60, START + 60),
                    Arrays.asList("DELETE", START + 120, null));
        }
    }

    @Test
    void everyChangeLandsExactlyOnceAcrossBatchesAndRestarts() throws Exception {
        for (int index = 0; index < 500; index++) {
            store.createItem("orders", "{\"id\":\"o" + index + "\",\"customerId\":\"c" + (index % 37)
                    + "\",\"n\":" + index + "}");
        }
        MirrorConfig smallBatches = MirrorConfig.defaults().withBatch(120, Duration.ofSeconds(1));
        try (FeedMirror mirror = new FeedMirror(store, mirrorDirectory, smallBatches, FlattenerConfig::defaults,
                clock)) {
            assertThat(mirror.sync()).isEqualTo(new FeedMirror.SyncResult(0, 500, 5));
        }
        for (int index = 0; index < 500; index += 5) {
            store.upsertItem("orders", "{\"id\":\"o" + index + "\",\"customerId\":\"c" + (index % 37)
                    + "\",\"n\":" + (index * 10) + "}");
        }
        try (FeedMirror restarted = new FeedMirror(store, mirrorDirectory, smallBatches, FlattenerConfig::defaults,
                clock)) {
            assertThat(restarted.sync().events()).isEqualTo(100);
            assertThat(restarted.sync().events()).isZero();
        }

        try (MirrorSql sql = MirrorSql.open(mirrorDirectory, "orders")) {
            assertThat(sql.value("SELECT count(*) FROM orders")).isEqualTo(500L);
            assertThat(sql.value("SELECT sum(n)::BIGINT FROM orders")).isEqualTo(
                    sumOfUpdatedValues());
            assertThat(sql.value("SELECT count(*) FROM orders_history")).isEqualTo(600L);
            assertThat(sql.value("SELECT count(DISTINCT (_pk, _lsn)) FROM orders_history")).isEqualTo(600L);
        }
    }

    private static long sumOfUpdatedValues() {
        long sum = 0;
        for (int index = 0; index < 500; index++) {
            sum += index % 5 == 0 ? index * 10L : index;
        }
        return sum;
    }

    @Test
    void theDaemonMirrorsChangesAsTheyComeIncludingContainersCreatedWhileItRuns() throws Exception {
        FeedMirror daemon = new FeedMirror(store, mirrorDirectory,
                MirrorConfig.defaults().withBatch(50_000, Duration.ofMillis(50)), FlattenerConfig::defaults,
                Clock.systemUTC());
        Thread thread = runInBackground(daemon);
        try {
            store.createItem("orders", "{\"id\":\"o1\",\"customerId\":\"c1\"}");
            awaitChanges("orders", 1);
            store.createContainer(ContainerProperties.of("returns", "/orderId").withAnalyticalTtl(-1));
            store.createItem("returns", "{\"id\":\"r1\",\"orderId\":\"o1\"}");
            awaitChanges("returns", 1);
        } finally {
            stop(daemon, thread);
        }
        assertThat(thread.isAlive()).isFalse();
    }

    @Test
    void aCaughtUpDaemonCommitsWhenTheFirstChangeIsAnIntervalOldSinceTheStoreCommittedItAndABacklogInOneBatch()
            throws Exception {
        // The store's clock is years behind the daemon's: to the daemon, every change has waited long already.
        for (int index = 0; index < 3000; index++) {
            store.createItem("orders", "{\"id\":\"o" + index + "\",\"customerId\":\"c" + index % 7 + "\"}");
        }
        FeedMirror daemon = new FeedMirror(store, mirrorDirectory,
                MirrorConfig.defaults().withBatch(50_000, Duration.ofMinutes(10)), FlattenerConfig::defaults,
                Clock.systemUTC());
        Thread thread = runInBackground(daemon);
        try {
            // Counted from its read, the batch would wait ten minutes.
            awaitChanges("orders", 3000);
        } finally {
            stop(daemon, thread);
        }
        assertThat(daemon.activity()).extracting(MirrorActivity::commits)
                .as("the backlog, read page by page, is committed as one batch").containsExactly(1L);
    }

    @Test
    void anIoErrorLeavesTheBatchUncommittedAndTheDaemonRetriesUntilItCanWrite() throws Exception {
        store.createItem("orders", "{\"id\":\"o1\",\"customerId\":\"c1\"}");
        sync();
        long before = MirrorFiles.batch(mirrorDirectory, "orders");
        // The history's data folder becomes a plain file: every Parquet file the next batch writes there fails.
        Path history = LocalFileIO.pathOf(MirrorTables.tableLocation(
                CatalogSettings.embedded(mirrorDirectory).warehouse(), "orders", "orders_history")).resolve("data");
        Path moved = work.resolve("history-moved-away");
        Files.move(history, moved);
        Files.writeString(history, "not a directory");
        FeedMirror daemon = new FeedMirror(store, mirrorDirectory,
                MirrorConfig.defaults().withBatch(50_000, Duration.ofMillis(10)), FlattenerConfig::defaults,
                Clock.systemUTC());
        Thread thread = runInBackground(daemon);
        try {
            store.createItem("orders", "{\"id\":\"o2\",\"customerId\":\"c2\"}");
            store.upsertItem("orders", "{\"id\":\"o1\",\"customerId\":\"c1\",\"status\":\"paid\"}");
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (daemon.activity().stream().mapToLong(MirrorActivity::batchFailures).sum() < 2) {
                assertThat(System.nanoTime()).as("two failed batches within 30 s").isLessThan(deadline);
                Thread.sleep(20);
            }
            assertThat(MirrorFiles.batch(mirrorDirectory, "orders")).as("nothing of a failed batch is committed")
                    .isEqualTo(before);

            Files.delete(history);
            Files.move(moved, history);
            awaitChanges("orders", 3);
        } finally {
            stop(daemon, thread);
        }
        try (MirrorSql sql = MirrorSql.open(mirrorDirectory, "orders")) {
            assertThat(sql.rows("SELECT id, status FROM orders ORDER BY id")).containsExactly(
                    Arrays.asList("o1", "paid"), Arrays.asList("o2", null));
            assertThat(sql.value("SELECT count(*) FROM orders_history")).isEqualTo(3L);
        }
    }

    static Thread runInBackground(FeedMirror daemon) {
        Thread thread = new Thread(() -> {
            try {
                daemon.run();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "mirror-daemon");
        thread.start();
        return thread;
    }

    static void stop(FeedMirror daemon, Thread thread) throws InterruptedException {
        daemon.stop();
        thread.join(30_000);
        daemon.close();
    }

    /** Waits (bounded) until the mirror's history of the container holds {@code changes} changes. */
    private void awaitChanges(String container, long changes) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        long seen = 0;
        while (seen < changes) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("The daemon mirrored " + seen + " of " + changes + " changes of " + container
                        + " in 30 s");
            }
            Thread.sleep(20);
            if (ContainerSnapshot.read(mirrorDirectory, container).isPresent()) {
                try (MirrorSql sql = MirrorSql.open(mirrorDirectory, container)) {
                    seen = (Long) sql.value("SELECT count(*) FROM " + container + "_history");
                }
            }
        }
    }

    @Test
    void aTtlExpiryInTheStoreLeavesTheMirroredRowButAUserDeleteRemovesIt() throws Exception {
        store.createContainer(ContainerProperties.of("events", "/kind").withDefaultTtl(60).withAnalyticalTtl(-1));
        store.createItem("events", "{\"id\":\"e1\",\"kind\":\"click\"}");
        store.createItem("events", "{\"id\":\"e2\",\"kind\":\"click\"}");
        sync();
        clock.advanceSeconds(61);
        assertThat(store.reapExpired(100)).isEqualTo(2);
        sync();
        store.createItem("events", "{\"id\":\"e3\",\"kind\":\"view\"}");
        store.deleteItem("events", PartitionKey.of("view"), "e3");
        sync();

        try (MirrorSql sql = MirrorSql.open(mirrorDirectory, "events")) {
            assertThat(sql.rows("SELECT id FROM events ORDER BY id")).containsExactly(List.of("e1"), List.of("e2"));
            assertThat(sql.rows("SELECT id, operation, ttl_expired FROM events_history WHERE operation = 'DELETE' "
                    + "ORDER BY id")).containsExactly(
                    List.of("e1", "DELETE", true), List.of("e2", "DELETE", true), List.of("e3", "DELETE", false));
        }
    }

    @Test
    void rowsOlderThanTheAnalyticalTtlVanishFromTheViewsAtOnce() throws Exception {
        store.createContainer(ContainerProperties.of("metrics", "/host").withAnalyticalTtl(3600));
        store.createItem("metrics", "{\"id\":\"m1\",\"host\":\"a\"}");
        clock.advanceSeconds(1800);
        store.createItem("metrics", "{\"id\":\"m2\",\"host\":\"a\"}");
        sync();

        long now = clock.instant().getEpochSecond();
        try (MirrorSql sql = MirrorSql.open(mirrorDirectory, "metrics", OptionalLong.of(now + 1900))) {
            assertThat(sql.rows("SELECT id FROM metrics")).containsExactly(List.of("m2"));
            assertThat(sql.rows("SELECT id FROM metrics_history")).containsExactly(List.of("m2"));
        }
        try (MirrorSql sql = MirrorSql.open(mirrorDirectory, "metrics", OptionalLong.of(now))) {
            assertThat(sql.value("SELECT count(*) FROM metrics")).isEqualTo(2L);
        }
    }

    @Test
    void schemaEvolvesAcrossFilesAndOlderFilesReadNullForNewColumns() throws Exception {
        store.createItem("orders", "{\"id\":\"o1\",\"customerId\":\"c1\",\"price\":3}");
        sync();
        store.createItem("orders", "{\"id\":\"o2\",\"customerId\":\"c1\",\"price\":2.5,\"coupon\":\"X\"}");
        store.createItem("orders", "{\"id\":\"o3\",\"customerId\":\"c1\",\"price\":\"free\"}");
        sync();

        try (MirrorSql sql = MirrorSql.open(mirrorDirectory, "orders")) {
            assertThat(sql.rows("SELECT id, price, price__varchar, coupon FROM orders ORDER BY id")).containsExactly(
                    Arrays.asList("o1", 3.0, null, null),
                    Arrays.asList("o2", 2.5, null, "X"),
                    Arrays.asList("o3", null, "free", null));
        }
        // The Iceberg table's own schema: what Spark or pyiceberg see.
        assertThat(MirrorFiles.latest(mirrorDirectory, "orders").root().view().schema().findField("price").type())
                .isEqualTo(Types.DoubleType.get());
    }

    @Test
    void anyPropertyNameReadsBackUnderItsSqlName() throws Exception {
        store.createItem("orders", """
                {"id":"o1","customerId":"c1","address line 2":"flat 3","Straße":"Hauptstraße","a.b":1,"Name":"x",
                 "name":"y","big":123456789012345678901234567890,"tags":["a","b"]}""");
        sync();

        try (MirrorSql sql = MirrorSql.open(mirrorDirectory, "orders")) {
            assertThat(sql.columnNames("orders")).contains("address line 2", "Straße", "a.b", "Name", "name_1");
            assertThat(sql.rows("SELECT \"address line 2\", \"Straße\", \"a.b\", \"Name\", name_1, big, tags "
                    + "FROM orders")).containsExactly(List.of("flat 3", "Hauptstraße", 1L, "x", "y",
                    new BigDecimal("123456789012345678901234567890"), List.of("a", "b")));
        }
    }

    @Test
    void filesOfACommitThatNeverHappenedAreRemovedOnOpen() throws Exception {
        store.createItem("orders", "{\"id\":\"o1\",\"customerId\":\"c1\"}");
        sync();
        Path stray = LocalFileIO.pathOf(MirrorTables.tableLocation(
                CatalogSettings.embedded(mirrorDirectory).warehouse(), "orders", "orders"))
                .resolve("data").resolve("00000-0-never-committed.parquet");
        Files.writeString(stray, "half a file of a commit that a crash stopped");

        store.createItem("orders", "{\"id\":\"o2\",\"customerId\":\"c1\"}");
        // Files no snapshot lists are removed once mirror.snapshots.keep-ms old: here at once.
        try (FeedMirror mirror = new FeedMirror(store, mirrorDirectory, MirrorConfig.fromProperties(Map.of(
                "mirror.snapshots.keep-ms", "0")), FlattenerConfig::defaults, clock)) {
            mirror.sync();
        }

        assertThat(stray).doesNotExist();
        assertThat(MirrorFiles.batch(mirrorDirectory, "orders")).isEqualTo(2);
        assertThat(MirrorFiles.parquetFiles(mirrorDirectory, "orders"))
                .isEqualTo(MirrorFiles.listed(mirrorDirectory, "orders"));
        try (MirrorSql sql = MirrorSql.open(mirrorDirectory, "orders")) {
            assertThat(sql.value("SELECT count(*) FROM orders")).isEqualTo(2L);
        }
    }

    @Test
    void aDocumentThatCannotBeMirroredGoesToTheDeadLettersAndTheRestOfItsBatchCommits() throws Exception {
        ObjectMapper json = StoreJson.mapper();
        // Only a source other than the store (a Kafka topic, say) can deliver such a document: its id is a number.
        PartitionKeyValue c1 = PartitionKeyValue.of(TextNode.valueOf("c1"));
        ChangeEvent numericId = new ChangeEvent("orders", c1, "7", Operation.CREATE, 1, 1000,
                false, Optional.of((ObjectNode) json.readTree("{\"id\":7,\"customerId\":\"c1\"}")),
                Optional.empty());
        ChangeEvent good = new ChangeEvent("orders", c1, "o1", Operation.CREATE, 2, 2000,
                false, Optional.of((ObjectNode) json.readTree("{\"id\":\"o1\",\"customerId\":\"c1\",\"_lsn\":2}")),
                Optional.empty());
        try (ContainerTables mirror = ContainerTables.open(mirrorDirectory, "orders",
                FlattenerConfig.defaults("orders"), MirrorConfig.defaults())) {
            MirrorTarget.Batch batch = mirror.begin();
            batch.add(numericId);
            batch.add(good);
            batch.commit(Checkpoint.NONE);
        }

        try (MirrorSql sql = MirrorSql.open(mirrorDirectory, "orders")) {
            assertThat(sql.rows("SELECT id FROM orders")).containsExactly(List.of("o1"));
            assertThat(sql.rows("SELECT id, _lsn, reason, raw_document FROM dead_letters")).containsExactly(
                    Arrays.asList(null, 1L, "the document has no string id", "{\"id\":7,\"customerId\":\"c1\"}"));
        }
    }

    @Test
    void aChangedFlattenerPolicyIsRefusedAndTheMirrorIsLeftAsItWas() throws Exception {
        store.createItem("orders", "{\"id\":\"o1\",\"customerId\":\"c1\"}");
        sync();
        store.createItem("orders", "{\"id\":\"o2\",\"customerId\":\"c1\"}");

        try (FeedMirror wellDefined = new FeedMirror(store, mirrorDirectory, MirrorConfig.defaults(),
                container -> FlattenerConfig.defaults(container).withTypePolicy(TypePolicy.WELL_DEFINED), clock)) {
            assertThatThrownBy(wellDefined::sync)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("Cannot load schema of orders")
                    .hasMessageContaining("run `docmirror rebuild --table orders` to rebuild the tables from their "
                            + "history under the new configuration");
        }

        assertThat(MirrorFiles.batch(mirrorDirectory, "orders")).isEqualTo(1);
        try (MirrorSql sql = MirrorSql.open(mirrorDirectory, "orders")) {
            assertThat(sql.rows("SELECT id FROM orders")).containsExactly(List.of("o1"));
        }
        sync();
        try (MirrorSql sql = MirrorSql.open(mirrorDirectory, "orders")) {
            assertThat(sql.value("SELECT count(*) FROM orders")).isEqualTo(2L);
        }
    }

    @Test
    void aSecondWriterOfTheSameContainerIsRefused() {
        try (ContainerTables first = ContainerTables.open(mirrorDirectory, "orders",
                FlattenerConfig.defaults("orders"), MirrorConfig.defaults())) {
            assertThatThrownBy(() -> ContainerTables.open(mirrorDirectory, "orders",
                    FlattenerConfig.defaults("orders"), MirrorConfig.defaults()))
                    .hasMessageContaining("another process is mirroring it");
        }
    }

    @Test
    void containersWithoutAnAnalyticalTtlAreNotMirrored() throws Exception {
        store.createContainer(ContainerProperties.of("sessions", "/user"));
        store.createItem("sessions", "{\"id\":\"s1\",\"user\":\"u\"}");
        store.createItem("orders", "{\"id\":\"o1\",\"customerId\":\"c1\"}");
        sync();

        assertThat(CatalogPointers.read(mirrorDirectory).locations().keySet())
                .extracting(table -> table.namespace().level(0)).containsOnly("orders");
    }

    private void sync() {
        try (FeedMirror mirror = new FeedMirror(store, mirrorDirectory, MirrorConfig.defaults(),
                FlattenerConfig::defaults, clock)) {
            mirror.sync();
        }
    }
}
