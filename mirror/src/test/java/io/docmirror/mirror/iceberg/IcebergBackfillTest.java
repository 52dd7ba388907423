package io.docmirror.mirror.iceberg;

import io.docmirror.feed.ContinuationToken;
import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.layout.CatalogConnection;
import io.docmirror.layout.MirrorCatalog;
import io.docmirror.layout.MirrorLayout;
import io.docmirror.mirror.Backfill;
import io.docmirror.mirror.FeedMirror;
import io.docmirror.mirror.MirrorConfig;
import io.docmirror.mirror.reconcile.ReconcileReport;
import io.docmirror.mirror.reconcile.Reconciler;
import io.docmirror.mirror.source.Checkpoint;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.StoreTesting;
import io.docmirror.store.TestingClock;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A backfill into Iceberg tables: each feed range's snapshot is a commit, the change feed takes over at each range's
 * snapshot LSN, and the mirror that streams on reconciles exactly with the store, whatever was written meanwhile; a
 * backfill stopped midway goes on with the ranges it had not done.
 */
class IcebergBackfillTest {
    private static final MirrorConfig ICEBERG = MirrorConfig.fromProperties(Map.of(
            "mirror.compaction.files", "0", "mirror.backfill.readers", "2"));

    @TempDir
    Path work;
    private final TestingClock clock = TestingClock.atEpochSecond(1_700_000_000L);
    private EmbeddedStore store;
    private int nextOrder;

    @BeforeEach
    void openStore() {
        store = StoreTesting.openWithClock(work.resolve("store"), clock);
        store.createContainer(ContainerProperties.of("orders", "/customerId").withAnalyticalTtl(-1)
                .withLogPartitions(4));
    }

    @AfterEach
    void closeStore() {
        store.close();
    }

    @Test
    void writesDuringTheBackfillReachTheMirrorOnceThroughTheChangeFeed() throws Exception {
        writeOrders(60);
        Path mirror = work.resolve("mirror");
        Backfill.Result result = backfill(mirror, new Backfill.Listener() {
            @Override
            public void itemsWritten(long items) {
                writeOrders(5);
            }

            @Override
            public void rangeCommitted(int feedRange, long lsn) {
                writeOrders(5);
            }
        });
        assertThat(result.rangeLsns()).containsOnlyKeys(0, 1, 2, 3);
        assertThat(result.position()).isEqualTo("batch 5");
        assertExact(mirror, "after the backfill");

        writeOrders(10);
        sync(mirror);
        assertExact(mirror, "after streaming on");
    }

    @Test
    void aBackfillStoppedMidwayGoesOnWithTheRangesItHadNotDone() throws Exception {
        writeOrders(40);
        Path mirror = work.resolve("mirror");
        assertThatThrownBy(() -> backfill(mirror, new Backfill.Listener() {
            @Override
            public void rangeCommitted(int feedRange, long lsn) {
                throw new IllegalStateException("stopped after feed range " + feedRange);
            }
        })).hasMessageContaining("stopped after feed range 0");
        // With the store at hand, a sync finishes the load with the ranges it had not done (over HTTP it refuses the
        // container: BackfillTest).
        writeOrders(10);
        sync(mirror);
        assertExact(mirror, "after a sync finished the backfill");
        writeOrders(10);
        sync(mirror);
        assertExact(mirror, "after streaming on");

        // Over the mirror now, a backfill replaces its tables with a snapshot in one commit.
        Backfill.Result again = backfill(mirror, Backfill.Listener.NONE);
        assertThat(again.rangesResumed()).isZero();
        writeOrders(5);
        sync(mirror);
        assertExact(mirror, "after a backfill over the mirror and streaming on");
    }

    @Test
    void aMirrorInTheEarlierManifestFormatIsRefusedWithTheWayToMirrorItAgain() throws Exception {
        writeOrders(20);
        Path mirror = work.resolve("mirror");
        // What earlier docmirror versions left: a container directory with its committed manifest versions.
        Path earlier = MirrorLayout.containerDirectory(mirror, "orders");
        Files.createDirectories(earlier.resolve("_manifest"));
        Files.writeString(earlier.resolve("_manifest").resolve("v000000000001.json"), "{\"version\":1}");

        assertThatThrownBy(() -> sync(mirror)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Cannot mirror container orders: " + earlier + " holds its mirror in the "
                        + "manifest format of earlier docmirror versions, which this version neither reads nor "
                        + "converts. Stop the mirror, remove " + earlier + ", and run `docmirror backfill "
                        + "--container orders` to mirror it again as Iceberg tables");
        assertThatThrownBy(() -> backfill(mirror, Backfill.Listener.NONE)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("holds its mirror in the manifest format of earlier docmirror versions");

        deleteRecursively(earlier);
        backfill(mirror, Backfill.Listener.NONE);
        writeOrders(5);
        sync(mirror);
        assertExact(mirror, "after the container was mirrored again");
    }

    @Test
    void theBackfillsFlattenedFilesAreWrittenByDuckDbAndAStreamedBatchsByIcebergsWriter() throws Exception {
        Path mirror = work.resolve("mirror");
        writeOrdersOfOneShape(0, 60);
        backfill(mirror, Backfill.Listener.NONE);
        Map<Path, String> backfilled = writers(mirror);
        writeOrdersOfOneShape(60, 5);
        sync(mirror);
        Map<Path, String> streamed = writers(mirror);
        streamed.keySet().removeAll(backfilled.keySet());

        // The files that last are the ones DuckDB reads fastest; a streamed batch's are written the quickest way.
        assertThat(backfilled).as("the backfill's data files").isNotEmpty();
        backfilled.forEach((file, writer) -> assertThat(writer).as("the writer of %s", file)
                .startsWith(file.toString().contains("orders_history") ? "parquet-mr" : "DuckDB"));
        assertThat(streamed).as("the streamed batch's data files").isNotEmpty();
        streamed.forEach((file, writer) -> assertThat(writer).as("the writer of %s", file).startsWith("parquet-mr"));
        assertExact(mirror, "after the backfill and a streamed batch");
    }

    @Test
    void aBackfillWritesFilesOfAtMostFileRowsRows() throws Exception {
        Path mirror = work.resolve("mirror");
        writeOrdersOfOneShape(0, 200);
        MirrorConfig smallFiles = MirrorConfig.fromProperties(Map.of("mirror.compaction.files", "0",
                "mirror.parquet.file-rows", "16"));
        new Backfill(store, mirror, smallFiles, FlattenerConfig.defaults("orders"), clock).run("orders",
                Backfill.Listener.NONE);

        Map<Path, Long> rows = rowsPerFile(mirror);
        System.out.println("rows per data file: " + rows.values());
        assertThat(rows.values()).as("the rows of each data file").allMatch(count -> count <= 16);
        // 200 orders, 200 items and 200 history entries over 4 feed ranges, at most 16 rows a file.
        assertThat(rows.keySet().stream().filter(file -> file.toString().contains("/orders/data/")))
                .as("the root table's data files").hasSizeGreaterThanOrEqualTo(200 / 16);
        assertThat(rows.values().stream().mapToLong(Long::longValue).sum()).as("every row, once").isEqualTo(600);
        assertExact(mirror, "after a backfill into files of 16 rows");
    }

    @Test
    void tablesABackfillWroteTakeNoOtherBatchUntilOpenedAgainWhichFindsTheBackfilledDocuments() {
        // A backfill keeps no index of where each document's rows are (it would grow with the container).
        Path mirror = work.resolve("mirror");
        FlattenerConfig flattener = FlattenerConfig.defaults(OrderBatches.ROOT);
        try (ContainerTables tables = ContainerTables.open(mirror, OrderBatches.CONTAINER, flattener, ICEBERG)) {
            ContainerBatch range = tables.beginBackfill();
            OrderBatches.changes(1).forEach(range::add);
            range.commitBackfillRange(0, 10, 1);

            assertThatThrownBy(tables::begin).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("backfilled here").hasMessageContaining("open them again");
            tables.finishBackfill(atLsn(10));
        }
        try (ContainerTables tables = ContainerTables.open(mirror, OrderBatches.CONTAINER, flattener, ICEBERG)) {
            // Batch 2 replaces the backfilled d1: its rows must be found, and deleted, through the files.
            ContainerBatch batch = tables.begin();
            OrderBatches.changes(2).forEach(batch::add);
            batch.commit(atLsn(20));
        }
        try (CatalogConnection catalog = MirrorCatalog.open(ICEBERG.catalog().settings(mirror))) {
            Table orders = catalog.catalog().loadTable(TableIdentifier.of(OrderBatches.CONTAINER, OrderBatches.ROOT));
            Table items = catalog.catalog().loadTable(TableIdentifier.of(OrderBatches.CONTAINER, OrderBatches.ITEMS));
            assertThat(IcebergRows.read(orders, "id", "v")).containsExactlyInAnyOrderElementsOf(OrderBatches.orders(2));
            assertThat(IcebergRows.read(items, "_id", "sku")).containsExactlyInAnyOrderElementsOf(
                    OrderBatches.items(2));
        }
    }

    /** A checkpoint of the container's one feed range at {@code lsn}. */
    private static Checkpoint atLsn(long lsn) {
        return Checkpoint.ofContinuation(new ContinuationToken(OrderBatches.CONTAINER, Map.of(0, lsn)).encode());
    }

    /** Creates orders whose columns never widen (a widening copies rows through Iceberg's writer). */
    private void writeOrdersOfOneShape(int first, int count) {
        for (int order = first; order < first + count; order++) {
            store.upsertItem("orders", "{\"id\":\"o" + order + "\",\"customerId\":\"c" + order % 9
                    + "\",\"total\":" + order + ".5,\"items\":[{\"sku\":\"s" + order % 3 + "\"}]}");
        }
    }

    /** What wrote each data file of the container's tables ({@code created_by} in its footer), by file. */
    private static Map<Path, String> writers(Path mirror) throws Exception {
        Map<Path, String> writers = new HashMap<>();
        footers(mirror, "created_by").forEach((file, writer) -> writers.put(file, (String) writer));
        return writers;
    }

    /** How many rows each data file of the container's tables holds, from its footer. */
    private static Map<Path, Long> rowsPerFile(Path mirror) throws Exception {
        Map<Path, Long> rows = new HashMap<>();
        footers(mirror, "num_rows").forEach((file, count) -> rows.put(file, ((Number) count).longValue()));
        return rows;
    }

    /** One column of DuckDB's {@code parquet_file_metadata} of each data file of the container's tables, by file. */
    private static Map<Path, Object> footers(Path mirror, String column) throws Exception {
        Map<Path, Object> values = new HashMap<>();
        try (Stream<Path> files = Files.walk(mirror.resolve("warehouse/orders"));
                Connection duckDb = DriverManager.getConnection("jdbc:duckdb:");
                Statement statement = duckDb.createStatement()) {
            for (Path file : (Iterable<Path>) files.filter(path -> path.toString().endsWith(".parquet"))::iterator) {
                try (ResultSet result = statement.executeQuery("SELECT " + column + " FROM parquet_file_metadata('"
                        + file + "')")) {
                    result.next();
                    values.put(file, result.getObject(1));
                }
            }
        }
        return values;
    }

    private static void deleteRecursively(Path directory) throws IOException {
        try (Stream<Path> files = Files.walk(directory)) {
            for (Path file : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
                Files.delete(file);
            }
        }
    }

    /** Creates {@code count} orders, and updates and deletes some of the earlier ones. */
    private void writeOrders(int count) {
        for (int i = 0; i < count; i++) {
            int order = nextOrder++;
            store.upsertItem("orders", "{\"id\":\"o" + order + "\",\"customerId\":\"c" + order % 9 + "\",\"total\":"
                    + order + ",\"items\":[{\"sku\":\"s" + order + "\",\"qty\":" + (order % 4) + "}]}");
            if (order % 7 == 3) {
                int earlier = order / 2;
                store.upsertItem("orders", "{\"id\":\"o" + earlier + "\",\"customerId\":\"c" + earlier % 9
                        + "\",\"total\":" + (earlier + 0.5) + ",\"items\":[]}");
            }
        }
    }

    private void assertExact(Path mirror, String when) {
        ReconcileReport report = new Reconciler(store, mirror, clock, 5).reconcile("orders");
        assertThat(report.differences()).as("%s: %s", when, report).isEmpty();
        assertThat(report.exact()).as(when).isTrue();
    }

    private Backfill.Result backfill(Path mirrorDirectory, Backfill.Listener listener) throws InterruptedException {
        return new Backfill(store, mirrorDirectory, ICEBERG, FlattenerConfig.defaults("orders"), clock)
                .run("orders", listener);
    }

    private void sync(Path mirrorDirectory) {
        try (FeedMirror mirror = new FeedMirror(store, mirrorDirectory, ICEBERG, FlattenerConfig::defaults, clock)) {
            mirror.sync();
        }
    }
}
