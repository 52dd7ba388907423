package io.docmirror.sql;

import io.docmirror.layout.ReaderLeases;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.PartitionKey;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTimeoutException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SqlEndpointTest {
    @TempDir
    Path work;

    private MirroredData data;

    @BeforeEach
    void mirrorSomeOrders() {
        data = new MirroredData(work);
        data.store.createContainer(ContainerProperties.of("orders", "/customerId").withAnalyticalTtl(-1));
        data.store.createItem("orders", """
                {"id":"o1","customerId":"c1","status":"new","code":7,
                 "customer":{"billingAddress":{"city":"Lyon"}},
                 "items":[{"sku":"A","qty":1,"price":2.50},{"sku":"B","qty":2,"price":1.25}]}""");
        data.store.createItem("orders", """
                {"id":"o2","customerId":"c2","status":"new","code":"X-9",
                 "customer":{"billingAddress":{"city":"Oslo"}},"items":[{"sku":"C","qty":3,"price":4}]}""");
        data.store.createItem("orders", """
                {"id":"o3","customerId":"c1","status":"new","code":8,"items":[]}""");
        data.sync();
    }

    @AfterEach
    void close() {
        data.close();
    }

    private SqlConfig config() {
        return SqlConfig.defaults().withRefreshInterval(Duration.ZERO);
    }

    /**
     * A container mirrored in the manifest format of earlier versions ({@code DATA/mirror/<container>/_manifest/}) is
     * not read: rather than serve the mirror without it, the endpoint refuses and says how to mirror it again.
     */
    @Test
    void aMirrorInTheEarlierManifestLayoutIsRefusedWithWhatToDo() throws Exception {
        Path legacy = data.mirrorDirectory().resolve("legacy");
        Files.createDirectories(legacy.resolve("_manifest"));
        Files.writeString(legacy.resolve("_manifest").resolve("v00000000000000000001.json"), "{}");

        assertThatThrownBy(() -> SqlEndpoint.open(data.mirrorDirectory(), config()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("The SQL endpoint cannot serve container legacy: " + legacy)
                .hasMessageContaining("manifest format of earlier docmirror versions")
                .hasMessageContaining("remove " + legacy + ", and run `docmirror backfill --container legacy`");
        assertThatThrownBy(() -> DriverManager.getConnection("jdbc:docmirror:" + data.dataDirectory))
                .hasMessageContaining("`docmirror backfill --container legacy`");

        // Once the directory is gone (and the container backfilled), the endpoint serves again.
        Files.delete(legacy.resolve("_manifest").resolve("v00000000000000000001.json"));
        Files.delete(legacy.resolve("_manifest"));
        try (SqlEndpoint endpoint = SqlEndpoint.open(data.mirrorDirectory(), config());
                Connection connection = endpoint.connect()) {
            assertThat(rows(connection, "SELECT count(*) FROM orders")).containsExactly(List.of(3L));
        }
    }

    @Test
    void servesCurrentStateChildTablesAndHistory() throws Exception {
        data.store.upsertItem("orders", """
                {"id":"o1","customerId":"c1","status":"shipped","code":7,"items":[{"sku":"B","qty":2,"price":1.25}]}""");
        data.store.deleteItem("orders", PartitionKey.of("c2"), "o2");
        data.sync();

        try (SqlEndpoint endpoint = SqlEndpoint.open(data.mirrorDirectory(), config());
                Connection connection = endpoint.connect()) {
            assertThat(rows(connection, "SELECT id, status FROM orders ORDER BY id"))
                    .containsExactly(List.of("o1", "shipped"), List.of("o3", "new"));
            assertThat(rows(connection, "SELECT _id, sku, qty FROM orders__items ORDER BY _id, _idx"))
                    .containsExactly(List.of("o1", "B", 2L));
            assertThat(rows(connection, "SELECT id, operation FROM orders_history ORDER BY _lsn, id"))
                    .hasSize(5)
                    .contains(List.of("o2", "DELETE"), List.of("o1", "REPLACE"));
        }
    }

    @Test
    void theEndpointHoldsNoVersionOnceItsCopyHasIt() throws Exception {
        Path leases = data.mirrorDirectory().resolve("orders").resolve(ReaderLeases.DIRECTORY);
        try (SqlEndpoint endpoint = SqlEndpoint.open(data.mirrorDirectory(), config());
                Connection connection = endpoint.connect()) {
            // The copy holds the rows: the mirror may expire every snapshot but its newest.
            assertThat(new ReaderLeases(data.mirrorDirectory().resolve("orders")).oldestHeld()).isEmpty();

            data.store.createItem("orders", "{\"id\":\"o4\",\"customerId\":\"c3\",\"status\":\"new\"}");
            data.sync();
            assertThat(endpoint.refresh()).isTrue();
            assertThat(new ReaderLeases(data.mirrorDirectory().resolve("orders")).oldestHeld()).isEmpty();
            assertThat(rows(connection, "SELECT count(*) FROM orders WHERE id = 'o4'")).containsExactly(List.of(1L));
        }
        try (var files = Files.list(leases)) {
            assertThat(files).as("leases left after the endpoint closed").isEmpty();
        }
    }

    @Test
    void catalogExplainsTablesColumnsConflictsAndFreshness() throws Exception {
        try (SqlEndpoint endpoint = SqlEndpoint.open(data.mirrorDirectory(), config());
                Connection connection = endpoint.connect()) {
            assertThat(rows(connection, "SELECT table_name, container, parent_table, json_path, \"rows\" "
                    + "FROM docmirror_tables ORDER BY table_name")).containsExactly(
                    List.of("orders", "orders", "", "$", 3L),
                    List.of("orders__items", "orders", "orders", "$.items[*]", 3L));
            assertThat(rows(connection, "SELECT column_name, type, role, json_path FROM docmirror_columns "
                    + "WHERE json_path IN ('$.customer.billingAddress.city', '$.items[*].sku', '$.code') "
                    + "ORDER BY json_path, column_name")).containsExactly(
                    List.of("code", "BIGINT", "value", "$.code"),
                    List.of("code__varchar", "VARCHAR", "variant", "$.code"),
                    List.of("customer__billingAddress__city", "VARCHAR", "value", "$.customer.billingAddress.city"),
                    List.of("sku", "VARCHAR", "value", "$.items[*].sku"));
            assertThat(rows(connection, "SELECT container, table_name, json_path, kept_type, seen_type, count, "
                    + "sample_ids FROM docmirror_conflicts")).containsExactly(
                    List.of("orders", "orders", "$.code", "BIGINT", "VARCHAR", 1L, List.of("o2")));
            assertThat(rows(connection, "SELECT container, batch, lag_seconds >= 0, "
                    + "seconds_since_commit IS NOT NULL FROM docmirror_freshness"))
                    .containsExactly(List.of("orders", 1L, true, true));
            assertThat(rows(connection, "SELECT count(*) FROM docmirror_dead_letters")).containsExactly(List.of(0L));
        }
    }

    @Test
    void everyColumnInTheCatalogIsAColumnOfItsView() throws Exception {
        try (SqlEndpoint endpoint = SqlEndpoint.open(data.mirrorDirectory(), config());
                Connection connection = endpoint.connect()) {
            for (String table : List.of("orders", "orders__items")) {
                List<List<Object>> catalog = rows(connection, "SELECT column_name, type FROM docmirror_columns "
                        + "WHERE table_name = '" + table + "' ORDER BY ordinal");
                List<List<Object>> described = rows(connection, "SELECT column_name, column_type FROM "
                        + "(DESCRIBE " + table + ")");
                assertThat(described).isEqualTo(catalog);
            }
        }
    }

    @Test
    void openConnectionsAndPreparedStatementsMoveToNewVersions() throws Exception {
        try (SqlEndpoint endpoint = SqlEndpoint.open(data.mirrorDirectory(), config());
                Connection connection = endpoint.connect();
                PreparedStatement count = connection.prepareStatement(
                        "SELECT count(*) FROM orders WHERE customerId = ?")) {
            count.setString(1, "c1");
            assertThat(single(count.executeQuery())).isEqualTo(2L);

            data.store.createItem("orders", "{\"id\":\"o4\",\"customerId\":\"c1\",\"status\":\"new\"}");
            data.sync();

            assertThat(single(count.executeQuery())).isEqualTo(3L);
            assertThat(rows(connection, "SELECT count(*) FROM orders")).containsExactly(List.of(4L));
            assertThat(endpoint.versions()).isEqualTo(Map.of("orders", 2L));
        }
    }

    @Test
    void columnLimitAllowsExactlyTheLimit() throws Exception {
        try (SqlEndpoint endpoint = SqlEndpoint.open(data.mirrorDirectory(), config());
                Connection connection = endpoint.connect()) {
            assertThat(rows(connection, selectColumns(1000)).get(0)).hasSize(1000);
            assertThatThrownBy(() -> rows(connection, selectColumns(1001)))
                    .isInstanceOf(SQLException.class)
                    .hasMessageContaining("1001 columns")
                    .hasMessageContaining("limit of 1000 columns");
            assertThatThrownBy(() -> connection.prepareStatement(selectColumns(1001)))
                    .hasMessageContaining("1001 columns");
            assertThat(rows(connection, "SELECT count(*) FROM orders")).containsExactly(List.of(3L));
        }
        try (SqlEndpoint endpoint = SqlEndpoint.open(data.mirrorDirectory(), config().withColumnLimit(5));
                Connection connection = endpoint.connect()) {
            assertThatThrownBy(() -> rows(connection, "SELECT * FROM orders"))
                    .hasMessageContaining("limit of 5 columns");
        }
    }

    @Test
    void spillingStopsAtTheSpillLimitAndTheEndpointServesOn() throws Exception {
        String sort = "SELECT count(*) FROM (SELECT i, md5(i::VARCHAR) AS h FROM range(3000000) AS t(i) ORDER BY h)";
        Map<String, String> small = Map.of("sql.memory-limit", "64MB", "sql.threads", "1", "sql.spill-limit", "1MB");
        try (SqlEndpoint endpoint = SqlEndpoint.open(data.mirrorDirectory(), SqlConfig.fromProperties(small));
                Connection connection = endpoint.connect()) {
            assertThatThrownBy(() -> rows(connection, sort)).isInstanceOf(SQLException.class)
                    .hasMessageContaining("Out of Memory");
            assertThat(rows(connection, "SELECT count(*) FROM orders")).containsExactly(List.of(3L));
        }
        Map<String, String> roomy = new HashMap<>(small);
        roomy.put("sql.spill-limit", "2GB");
        try (SqlEndpoint endpoint = SqlEndpoint.open(data.mirrorDirectory(), SqlConfig.fromProperties(roomy));
                Connection connection = endpoint.connect()) {
            assertThat(rows(connection, sort)).as("the same sort, with room to spill")
                    .containsExactly(List.of(3_000_000L));
        }
    }

    @Test
    void longQueryIsCancelledAndTheConnectionServesOn() throws Exception {
        try (SqlEndpoint endpoint = SqlEndpoint.open(data.mirrorDirectory(),
                config().withQueryTimeout(Duration.ofMillis(300)));
                Connection connection = endpoint.connect()) {
            long start = System.nanoTime();
            assertThatThrownBy(() -> rows(connection, "SELECT count(*) FROM range(1000000000000) a"))
                    .isInstanceOf(SQLTimeoutException.class)
                    .hasMessageContaining("query timeout of 300 ms");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(30));
            assertThat(rows(connection, "SELECT count(*) FROM orders")).containsExactly(List.of(3L));
        }
    }

    @Test
    void jdbcUrlConnectsWithPropertiesAndRefusesUnknownOnes() throws Exception {
        java.util.Properties properties = new java.util.Properties();
        properties.setProperty("sql.column-limit", "2");
        try (Connection connection = DriverManager.getConnection("jdbc:docmirror:" + work, properties)) {
            assertThat(rows(connection, "SELECT id, status FROM orders WHERE id = 'o1'"))
                    .containsExactly(List.of("o1", "new"));
            assertThatThrownBy(() -> rows(connection, "SELECT id, status, code FROM orders"))
                    .hasMessageContaining("limit of 2 columns");
            assertThat(connection.getMetaData().getConnection()).isSameAs(connection);
        }
        java.util.Properties unknown = new java.util.Properties();
        unknown.setProperty("sql.colum-limit", "2");
        assertThatThrownBy(() -> DriverManager.getConnection("jdbc:docmirror:" + work, unknown))
                .hasMessageContaining("Unknown configuration sql.colum-limit");
    }

    static String selectColumns(int count) {
        return IntStream.rangeClosed(1, count).mapToObj(index -> "id AS c" + index)
                .collect(Collectors.joining(", ", "SELECT ", " FROM orders LIMIT 1"));
    }

    static List<List<Object>> rows(Connection connection, String query) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery(query)) {
            return rows(result);
        }
    }

    static List<List<Object>> rows(ResultSet result) throws SQLException {
        List<List<Object>> rows = new ArrayList<>();
        int columns = result.getMetaData().getColumnCount();
        while (result.next()) {
            List<Object> row = new ArrayList<>();
            for (int column = 1; column <= columns; column++) {
                Object value = result.getObject(column);
                row.add(value instanceof java.sql.Array array ? List.of((Object[]) array.getArray())
                        : value == null ? "" : value);
            }
            rows.add(row);
        }
        return rows;
    }

    private static Object single(ResultSet result) throws SQLException {
        try (result) {
            List<List<Object>> rows = rows(result);
            assertThat(rows).hasSize(1);
            return rows.get(0).get(0);
        }
    }
}
