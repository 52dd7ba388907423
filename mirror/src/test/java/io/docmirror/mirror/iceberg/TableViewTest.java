package io.docmirror.mirror.iceberg;

import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.layout.CatalogConnection;
import io.docmirror.layout.CatalogSettings;
import io.docmirror.layout.ContainerSnapshot;
import io.docmirror.layout.MirrorCatalog;
import io.docmirror.layout.MirrorSummary;
import io.docmirror.layout.TableView;
import io.docmirror.mirror.Backfill;
import io.docmirror.mirror.MirrorConfig;
import io.docmirror.mirror.Rebuild;
import io.docmirror.mirror.source.Checkpoint;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.PartitionKey;
import io.docmirror.store.StoreTesting;
import io.docmirror.store.TestingClock;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.duckdb.DuckDBConnection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.Array;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * DuckDB reading the mirror's Iceberg tables the way the SQL endpoint does (by column name or by field id, minus the
 * deletion vectors' rows) returns exactly what Iceberg's own reader returns, every table and every column: after
 * updates, deletes, added columns and widened ones.
 */
class TableViewTest {
    private static final ContainerProperties ORDERS = ContainerProperties.of("orders", "/customerId")
            .withAnalyticalTtl(-1);
    /** The same container as the mirror learns it under an analytical TTL of an hour. */
    private static final ContainerProperties ORDERS_FOR_AN_HOUR = ORDERS.withAnalyticalTtl(3600);

    @TempDir
    Path work;
    private final TestingClock clock = TestingClock.atEpochSecond(1_700_000_000L);
    private EmbeddedStore store;
    private Path mirrorDirectory;

    @BeforeEach
    void openStore() {
        store = StoreTesting.openWithClock(work.resolve("store"), clock);
        store.createContainer(ORDERS);
        mirrorDirectory = work.resolve("mirror");
    }

    @AfterEach
    void closeStore() {
        store.close();
    }

    @Test
    void duckDbReadsEveryTableAsIcebergsOwnReaderDoes() throws SQLException {
        store.createItem("orders", """
                {"id":"o1","customerId":"c1","total":10,"tags":["a","b"],"address":{"city":"Oslo"},
                 "items":[{"sku":"A","qty":1},{"sku":"B","qty":2}]}""");
        store.createItem("orders", """
                {"id":"o2","customerId":"c2","total":5,"items":[{"sku":"C","qty":1}],"paid":true}""");
        sync();
        store.upsertItem("orders", """
                {"id":"o1","customerId":"c1","total":10.125,"tags":["c"],"items":[{"sku":"B","qty":2.5}],
                 "\\"quoted\\" name":"x"}""");
        store.createItem("orders", """
                {"id":"o3","customerId":"c1","total":-0.0,"scores":[1,2.5],"items":[]}""");
        store.deleteItem("orders", PartitionKey.of("c2"), "o2");
        sync();

        assertDuckDbReadsAsIcebergDoes("after streamed batches");
        try (CatalogConnection catalog = MirrorCatalog.open(CatalogSettings.embedded(mirrorDirectory))) {
            assertThat(TableView.current(catalog.catalog().loadTable(TableIdentifier.of("orders", "orders")),
                    catalog.workers())
                    .deletedRows()).as("superseded root rows").isGreaterThan(0);
        }
    }

    @Test
    void aWideTableWithDeletedRowsInManyFilesIsReadInOneScanAsIcebergReadsIt() throws SQLException {
        // 800 columns and three files with deleted rows: a scan a file would hold 3,200 column readers.
        for (int batch = 0; batch < 4; batch++) {
            for (int order = 0; order < 3; order++) {
                store.upsertItem("orders", wideOrder("o" + batch + "-" + order, batch));
            }
            sync();
        }
        for (int batch = 0; batch < 3; batch++) {
            store.upsertItem("orders", wideOrder("o" + batch + "-1", 10 + batch));
        }
        store.deleteItem("orders", PartitionKey.of("c1"), "o3-2");
        sync();

        ContainerSnapshot snapshot = ContainerSnapshot.read(mirrorDirectory, "orders").orElseThrow();
        String select = snapshot.root().view().select(ContainerSnapshot.DELETION_VECTORS);
        // One scan of the files with deleted rows, one of the file without.
        assertThat(select.split("read_parquet\\(", -1).length - 1).as("scans in the root table's view").isEqualTo(2);
        assertDuckDbReadsAsIcebergDoes("with deleted rows in three files of 800 columns");
    }

    @Test
    void duckDbKnowsHowManyRowsAreInFilesWhoseColumnsKeptTheirNamesAndTypes() throws SQLException {
        for (int order = 0; order < 40; order++) {
            store.upsertItem("orders", "{\"id\":\"o" + order + "\",\"customerId\":\"c1\",\"total\":" + order + "}");
        }
        sync();
        // A column added: the first file has none of it, and reads NULL there.
        store.upsertItem("orders", "{\"id\":\"o40\",\"customerId\":\"c1\",\"total\":40,\"note\":\"new\"}");
        sync();
        assertThat(estimatedRootRows()).as("DuckDB's estimate of the root table's rows, read by column name")
                .isGreaterThanOrEqualTo(40);
        assertDuckDbReadsAsIcebergDoes("with a column added");

        // A column widened: the files written before hold another type under its name, so they are read by field id.
        store.upsertItem("orders", "{\"id\":\"o41\",\"customerId\":\"c1\",\"total\":41.5}");
        sync();
        assertThat(ContainerSnapshot.read(mirrorDirectory, "orders").orElseThrow().root().view()
                .select(ContainerSnapshot.DELETION_VECTORS)).as("the root table's view after a widening")
                .contains("schema = MAP {");
        assertDuckDbReadsAsIcebergDoes("with a column widened");
    }

    /** The largest row count DuckDB's plan of the root table's view expects of a scan. */
    private long estimatedRootRows() throws SQLException {
        ContainerSnapshot snapshot = ContainerSnapshot.read(mirrorDirectory, "orders").orElseThrow();
        long estimate = 0;
        try (DuckDBConnection duckDb = (DuckDBConnection) DriverManager.getConnection("jdbc:duckdb:");
                Statement statement = duckDb.createStatement()) {
            snapshot.loadDeletionVectors(duckDb);
            try (ResultSet plan = statement.executeQuery("EXPLAIN "
                    + snapshot.root().view().select(ContainerSnapshot.DELETION_VECTORS))) {
                while (plan.next()) {
                    Matcher rows = Pattern.compile("~([0-9,]+) rows?").matcher(plan.getString(2));
                    while (rows.find()) {
                        estimate = Math.max(estimate, Long.parseLong(rows.group(1).replace(",", "")));
                    }
                }
            }
        }
        return estimate;
    }

    private static String wideOrder(String id, int version) {
        StringBuilder order = new StringBuilder("{\"id\":\"" + id + "\",\"customerId\":\"c1\",\"version\":"
                + version);
        for (int field = 0; field < 800; field++) {
            order.append(",\"f").append(field).append("\":").append(field * 10 + version);
        }
        return order.append('}').toString();
    }

    @Test
    void duckDbReadsAsIcebergDoesAfterEveryKindOfCommit() throws Exception {
        for (int order = 0; order < 30; order++) {
            store.upsertItem("orders", "{\"id\":\"o" + order + "\",\"customerId\":\"c" + order % 4
                    + "\",\"total\":" + order + ",\"items\":[{\"sku\":\"s" + order + "\"}]}");
        }
        MirrorConfig iceberg = MirrorConfig.fromProperties(Map.of("mirror.compaction.files", "2"));
        new Backfill(store, mirrorDirectory, iceberg, FlattenerConfig.defaults("orders"), clock)
                .run("orders", Backfill.Listener.NONE);
        assertDuckDbReadsAsIcebergDoes("after a backfill");

        for (int round = 0; round < 3; round++) {
            store.upsertItem("orders", "{\"id\":\"o" + round + "\",\"customerId\":\"c" + round % 4
                    + "\",\"total\":" + (round + 0.5) + ",\"items\":[]}");
            store.deleteItem("orders", PartitionKey.of("c" + (10 + round) % 4), "o" + (10 + round));
            FeedSync.sync(store, ORDERS, mirrorDirectory, FlattenerConfig.defaults("orders"), iceberg, clock);
        }
        assertDuckDbReadsAsIcebergDoes("after streamed batches with a widening");

        try (ContainerTables tables = ContainerTables.open(mirrorDirectory, ORDERS, FlattenerConfig.defaults("orders"),
                iceberg, clock)) {
            assertThat(tables.compact()).as("compaction due").isTrue();
        }
        assertDuckDbReadsAsIcebergDoes("after a compaction");

        new Rebuild(mirrorDirectory, iceberg, clock).run("orders", FlattenerConfig.defaults("orders"), changes -> { });
        assertDuckDbReadsAsIcebergDoes("after a rebuild");
    }

    @Test
    void aTtlCommitLeavesIcebergsReaderWithWhatTheViewsShowAsOfIt() throws SQLException {
        long start = writeOrdersOfThreeAges();
        Checkpoint streamed;
        try (ContainerTables tables = openForAnHour(MirrorConfig.defaults())) {
            streamed = tables.checkpoint();
            // The first batch's root and history file are read; the second batch's statistics rule out its files.
            assertThat(tables.applyAnalyticalTtl()).isEqualTo(new TtlExpiry(start + 4000 - 3600, 2, 3, 2, true));
            assertThat(tables.applyAnalyticalTtl()).as("nothing more due: no data file read, no commit")
                    .isEqualTo(new TtlExpiry(start + 4000 - 3600, 0, 0, 0, true));
            assertThat(tables.batches()).isEqualTo(3);
        }

        assertDuckDbReadsAsIcebergDoes("after a TTL commit", OptionalLong.of(start + 4000));
        assertThat(icebergIds("orders", "id")).containsExactlyInAnyOrder("o3", "o4", "o5");
        assertThat(icebergIds("orders__items", "_id")).containsExactlyInAnyOrder("o3", "o4", "o4", "o5");
        assertThat(icebergIds("orders_history", "id")).containsExactlyInAnyOrder("o5", "o3", "o4");
        try (CatalogConnection catalog = MirrorCatalog.open(CatalogSettings.embedded(mirrorDirectory))) {
            Snapshot ttlCommit = catalog.catalog().loadTable(TableIdentifier.of("orders", "orders")).currentSnapshot();
            assertThat(ttlCommit.summary()).containsEntry(MirrorSummary.COMMIT_KIND, "ttl")
                    .containsEntry(MirrorSummary.BATCH, "3");
            assertThat(TablesState.checkpointOf(ttlCommit)).as("checkpoint carried forward").isEqualTo(streamed);
        }
    }

    /**
     * A TTL commit deletes about a batch of documents at most ({@code mirror.batch.max-events}, a data file at a
     * time), and as many history entries: the first expiry of a large container takes several commits.
     */
    @Test
    void anExpiryLargerThanABatchTakesSeveralCommits() {
        writeOrdersOfThreeAges();
        // Every order is due now, in both batches' files.
        clock.advanceSeconds(2000);
        MirrorConfig oneEventBatches = MirrorConfig.defaults().withBatch(1, MirrorConfig.defaults().batchMaxInterval());
        try (ContainerTables tables = openForAnHour(oneEventBatches)) {
            TtlExpiry first = tables.applyAnalyticalTtl();
            assertThat(first.complete()).as("the first commit reached its bound").isFalse();
            assertThat(first.filesRead()).as("a root file and a history file").isEqualTo(2);
            TtlExpiry second = tables.applyAnalyticalTtl();
            assertThat(second.complete()).isTrue();
            assertThat(first.documents() + second.documents()).isEqualTo(5);
            assertThat(first.historyEntries() + second.historyEntries()).isEqualTo(6);
            assertThat(tables.documents()).isZero();
            assertThat(tables.batches()).as("two streamed batches, two TTL commits").isEqualTo(4);
        }
        assertThat(icebergIds("orders", "id")).isEmpty();
        assertThat(icebergIds("orders__items", "_id")).isEmpty();
    }

    @Test
    void anExpiredDocumentWrittenAgainComesBackWithOnlyItsNewRows() throws SQLException {
        writeOrdersOfThreeAges();
        applyTheTtl();
        store.upsertItem("orders", """
                {"id":"o1","customerId":"c1","total":11,"items":[{"sku":"Z","qty":9}]}""");
        syncForAnHour();

        assertDuckDbReadsAsIcebergDoes("after an expired document came back",
                OptionalLong.of(clock.instant().getEpochSecond()));
        assertThat(icebergIds("orders", "id")).containsExactlyInAnyOrder("o1", "o3", "o4", "o5");
        try (CatalogConnection catalog = MirrorCatalog.open(CatalogSettings.embedded(mirrorDirectory))) {
            assertThat(IcebergRows.read(catalog.catalog().loadTable(TableIdentifier.of("orders", "orders__items")),
                    "_id", "sku")).filteredOn(row -> row.get(0).equals("o1")).containsExactly(List.of("o1", "Z"));
        }
    }

    @Test
    void reopenedTablesKnowOnlyTheRowsATtlCommitLeft() throws SQLException {
        long start = writeOrdersOfThreeAges();
        applyTheTtl();

        clock.advanceSeconds(700);
        try (ContainerTables tables = openForAnHour(MirrorConfig.defaults())) {
            assertThat(tables.documents()).as("documents with rows after a restart").isEqualTo(3);
            // o5 expires now: its root row and history entry are in files that have a deletion vector already,
            // which the new deletions must be merged with, the history's too.
            assertThat(tables.applyAnalyticalTtl()).isEqualTo(new TtlExpiry(start + 4700 - 3600, 1, 1, 2, true));
            assertThat(tables.documents()).isEqualTo(2);
        }
        store.deleteItem("orders", PartitionKey.of("c4"), "o4");
        store.upsertItem("orders", """
                {"id":"o3","customerId":"c3","total":3,"items":[{"sku":"Y","qty":1}]}""");
        store.createItem("orders", """
                {"id":"o6","customerId":"c6","items":[{"sku":"X","qty":1}]}""");
        syncForAnHour();

        assertDuckDbReadsAsIcebergDoes("after a restart, a second TTL commit and streamed changes",
                OptionalLong.of(start + 4700));
        assertThat(icebergIds("orders", "id")).containsExactlyInAnyOrder("o3", "o6");
        assertThat(icebergIds("orders__items", "_id")).containsExactlyInAnyOrder("o3", "o6");

        // A compaction copies live rows only: the history's entries the TTL deleted stay deleted.
        try (ContainerTables tables = openForAnHour(MirrorConfig.fromProperties(
                Map.of("mirror.compaction.files", "2")))) {
            assertThat(tables.compact()).as("compaction due").isTrue();
        }
        assertDuckDbReadsAsIcebergDoes("after a compaction", OptionalLong.of(start + 4700));
        assertThat(icebergIds("orders_history", "id")).containsExactlyInAnyOrder("o3", "o4", "o4", "o3", "o6");
    }

    @Test
    void aRebuildAfterATtlCommitKeepsTheTtlAndAgreesWithTheViews() throws SQLException {
        long start = writeOrdersOfThreeAges();
        applyTheTtl();

        new Rebuild(mirrorDirectory, MirrorConfig.defaults(), clock).run("orders", FlattenerConfig.defaults("orders"),
                changes -> { });

        assertThat(ContainerSnapshot.read(mirrorDirectory, "orders").orElseThrow().analyticalTtl())
                .as("the TTL recorded on the rebuilt root table").isEqualTo(3600);
        assertDuckDbReadsAsIcebergDoes("after a rebuild", OptionalLong.of(start + 4000));
        assertThat(icebergIds("orders", "id")).containsExactlyInAnyOrder("o3", "o4", "o5");
    }

    @Test
    void upkeepAppliesTheTtlOnceAnInterval() {
        writeOrdersOfThreeAges();
        MirrorConfig everyFifteenMinutes = MirrorConfig.fromProperties(Map.of(
                "mirror.analytical-ttl.interval-ms", "900000"));
        try (ContainerTables tables = openForAnHour(everyFifteenMinutes)) {
            tables.maintain();
            assertThat(tables.batches()).as("the first upkeep applies the TTL").isEqualTo(3);
            assertThat(tables.documents()).isEqualTo(3);

            clock.advanceSeconds(700);
            tables.maintain();
            assertThat(tables.documents()).as("o5 has expired, but the interval has not passed").isEqualTo(3);

            clock.advanceSeconds(200);
            tables.maintain();
            assertThat(tables.batches()).isEqualTo(4);
            assertThat(tables.documents()).isEqualTo(2);
        }
    }

    /**
     * Orders of three ages as of the clock's second {@code start + 4000}, under a TTL of an hour: o1 and o2, and the
     * first version of o3, were written at {@code start} and are past it; o5, written at {@code start + 1000}, will be
     * at {@code start + 4600}; o3's second version and o4 are from {@code start + 2000}. Two streamed batches.
     *
     * @return {@code start}, the clock's second when it was called
     */
    private long writeOrdersOfThreeAges() {
        long start = clock.instant().getEpochSecond();
        store.createItem("orders", """
                {"id":"o1","customerId":"c1","total":10,"items":[{"sku":"A","qty":1},{"sku":"B","qty":2}]}""");
        store.createItem("orders", """
                {"id":"o2","customerId":"c2","total":5,"items":[{"sku":"C","qty":1}]}""");
        store.createItem("orders", """
                {"id":"o3","customerId":"c3","total":7,"items":[{"sku":"D","qty":1}]}""");
        clock.advanceSeconds(1000);
        store.createItem("orders", """
                {"id":"o5","customerId":"c5","total":1,"items":[{"sku":"E","qty":1}]}""");
        syncForAnHour();
        clock.advanceSeconds(1000);
        store.upsertItem("orders", """
                {"id":"o3","customerId":"c3","total":8,"items":[{"sku":"F","qty":3}]}""");
        store.createItem("orders", """
                {"id":"o4","customerId":"c4","total":4,"items":[{"sku":"G","qty":1},{"sku":"H","qty":2}]}""");
        syncForAnHour();
        clock.advanceSeconds(2000);
        return start;
    }

    /** One TTL commit, by tables opened for it. */
    private void applyTheTtl() {
        try (ContainerTables tables = openForAnHour(MirrorConfig.defaults())) {
            tables.applyAnalyticalTtl();
        }
    }

    private ContainerTables openForAnHour(MirrorConfig config) {
        return ContainerTables.open(mirrorDirectory, ORDERS_FOR_AN_HOUR, FlattenerConfig.defaults("orders"), config,
                clock);
    }

    private void syncForAnHour() {
        FeedSync.sync(store, ORDERS_FOR_AN_HOUR, mirrorDirectory, FlattenerConfig.defaults("orders"),
                MirrorConfig.defaults(), clock);
    }

    /** The values of {@code column} in a table, as Iceberg's own reader returns them. */
    private List<Object> icebergIds(String table, String column) {
        try (CatalogConnection catalog = MirrorCatalog.open(CatalogSettings.embedded(mirrorDirectory))) {
            return IcebergRows.read(catalog.catalog().loadTable(TableIdentifier.of("orders", table)), column).stream()
                    .map(row -> row.get(0)).toList();
        }
    }

    private void assertDuckDbReadsAsIcebergDoes(String when) throws SQLException {
        assertDuckDbReadsAsIcebergDoes(when, OptionalLong.empty());
    }

    /**
     * Every table of the container, read through the views the SQL endpoint makes ({@link ContainerSnapshot}), holds
     * exactly the rows Iceberg's own reader returns, every column.
     *
     * @param asOfEpochSeconds the second the views count the analytical TTL back from (empty: now)
     */
    private void assertDuckDbReadsAsIcebergDoes(String when, OptionalLong asOfEpochSeconds) throws SQLException {
        ContainerSnapshot snapshot = ContainerSnapshot.read(mirrorDirectory, "orders").orElseThrow();
        try (CatalogConnection catalog = MirrorCatalog.open(CatalogSettings.embedded(mirrorDirectory));
                DuckDBConnection duckDb = (DuckDBConnection) DriverManager.getConnection("jdbc:duckdb:")) {
            snapshot.loadDeletionVectors(duckDb);
            String root = "\"" + snapshot.root().name() + "\"";
            try (Statement statement = duckDb.createStatement()) {
                statement.execute("CREATE VIEW " + root + " AS " + snapshot.currentState(snapshot.root().name(), root,
                        asOfEpochSeconds));
            }
            Map<String, String> views = new LinkedHashMap<>();
            for (ContainerSnapshot.FlattenedTable table : snapshot.tables()) {
                views.put(table.name(), table.isRoot() ? "SELECT * FROM " + root
                        : snapshot.currentState(table.name(), root, asOfEpochSeconds));
            }
            views.put("orders_history", snapshot.history(asOfEpochSeconds));
            for (Map.Entry<String, String> view : views.entrySet()) {
                Table table = catalog.catalog().loadTable(TableIdentifier.of("orders", view.getKey()));
                String[] columns = table.schema().columns().stream().map(Types.NestedField::name)
                        .toArray(String[]::new);
                List<List<Object>> expected = IcebergRows.read(table, columns).stream()
                        .map(TableViewTest::normalized).toList();
                assertThat(expected).as("rows of %s %s", view.getKey(), when).isNotEmpty();
                assertThat(duckDbRows(duckDb, view.getValue())).as("%s in DuckDB %s", view.getKey(), when)
                        .containsExactlyInAnyOrderElementsOf(expected);
            }
        }
    }

    private static List<List<Object>> duckDbRows(DuckDBConnection duckDb, String sql) throws SQLException {
        List<List<Object>> rows = new ArrayList<>();
        try (Statement statement = duckDb.createStatement(); ResultSet result = statement.executeQuery(sql)) {
            int columns = result.getMetaData().getColumnCount();
            while (result.next()) {
                List<Object> row = new ArrayList<>();
                for (int column = 1; column <= columns; column++) {
                    Object value = result.getObject(column);
                    row.add(value instanceof Array array ? Arrays.asList((Object[]) array.getArray()) : value);
                }
                rows.add(normalized(row));
            }
        }
        return rows;
    }

    /** Values as both readers agree to spell them: numbers by exact value, times as instants, lists as lists. */
    private static List<Object> normalized(List<Object> row) {
        List<Object> values = new ArrayList<>();
        for (Object value : row) {
            values.add(normalized(value));
        }
        return values;
    }

    private static Object normalized(Object value) {
        if (value instanceof List<?> list) {
            return normalized(new ArrayList<Object>(list));
        }
        if (value instanceof BigDecimal decimal) {
            return decimal.toPlainString();
        }
        if (value instanceof Double real) {
            // Keeps -0.0 apart from 0.0.
            return "double:" + real;
        }
        if (value instanceof java.time.OffsetDateTime time) {
            return time.toInstant().toString();
        }
        if (value instanceof java.time.LocalDateTime time) {
            return time.toString();
        }
        if (value instanceof java.sql.Timestamp time) {
            return time.toLocalDateTime().toString();
        }
        return value;
    }

    private void sync() {
        FeedSync.sync(store, ORDERS, mirrorDirectory, FlattenerConfig.defaults("orders"), MirrorConfig.defaults(),
                clock);
    }
}
