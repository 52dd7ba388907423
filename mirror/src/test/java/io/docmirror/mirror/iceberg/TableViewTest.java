package io.docmirror.mirror.iceberg;

import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.layout.CatalogConnection;
import io.docmirror.layout.CatalogSettings;
import io.docmirror.layout.ContainerSnapshot;
import io.docmirror.layout.MirrorCatalog;
import io.docmirror.layout.TableView;
import io.docmirror.mirror.Backfill;
import io.docmirror.mirror.MirrorConfig;
import io.docmirror.mirror.Rebuild;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.PartitionKey;
import io.docmirror.store.StoreTesting;
import io.docmirror.store.TestingClock;
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

import static org.assertj.core.api.Assertions.assertThat;

/**
 * DuckDB reading the mirror's Iceberg tables the way the SQL endpoint does (by field id, minus the deletion vectors'
 * rows) returns exactly what Iceberg's own reader returns, every table and every column: after updates, deletes,
 * added columns and widened ones.
 */
class TableViewTest {
    private static final ContainerProperties ORDERS = ContainerProperties.of("orders", "/customerId")
            .withAnalyticalTtl(-1);

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
            assertThat(TableView.current(catalog.catalog().loadTable(TableIdentifier.of("orders", "orders")))
                    .deletedRows()).as("superseded root rows").isGreaterThan(0);
        }
    }

    @Test
    void duckDbReadsAsIcebergDoesAfterEveryKindOfCommit() throws Exception {
        for (int order = 0; order < 30; order++) {
            store.upsertItem("orders", "{\"id\":\"o" + order + "\",\"customerId\":\"c" + order % 4
                    + "\",\"total\":" + order + ",\"items\":[{\"sku\":\"s" + order + "\"}]}");
        }
        MirrorConfig iceberg = MirrorConfig.fromProperties(Map.of("mirror.compaction.files", "2"));
        new Backfill(store, mirrorDirectory, iceberg, FlattenerConfig.defaults("orders"))
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
                iceberg)) {
            assertThat(tables.compact()).as("compaction due").isTrue();
        }
        assertDuckDbReadsAsIcebergDoes("after a compaction");

        new Rebuild(mirrorDirectory, iceberg).run("orders", FlattenerConfig.defaults("orders"), changes -> { });
        assertDuckDbReadsAsIcebergDoes("after a rebuild");
    }

    /**
     * Every table of the container, read through the views the SQL endpoint makes ({@link ContainerSnapshot}), holds
     * exactly the rows Iceberg's own reader returns, every column.
     */
    private void assertDuckDbReadsAsIcebergDoes(String when) throws SQLException {
        ContainerSnapshot snapshot = ContainerSnapshot.read(mirrorDirectory, "orders").orElseThrow();
        try (CatalogConnection catalog = MirrorCatalog.open(CatalogSettings.embedded(mirrorDirectory));
                DuckDBConnection duckDb = (DuckDBConnection) DriverManager.getConnection("jdbc:duckdb:")) {
            snapshot.loadDeletedRows(duckDb);
            String root = "\"" + snapshot.root().name() + "\"";
            try (Statement statement = duckDb.createStatement()) {
                statement.execute("CREATE VIEW " + root + " AS " + snapshot.currentState(snapshot.root().name(), root));
            }
            Map<String, String> views = new LinkedHashMap<>();
            for (ContainerSnapshot.FlattenedTable table : snapshot.tables()) {
                views.put(table.name(), table.isRoot() ? "SELECT * FROM " + root
                        : snapshot.currentState(table.name(), root));
            }
            views.put("orders_history", snapshot.history());
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
