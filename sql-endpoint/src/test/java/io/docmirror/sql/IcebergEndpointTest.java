package io.docmirror.sql;

import io.docmirror.layout.CatalogConnection;
import io.docmirror.layout.CatalogSettings;
import io.docmirror.layout.MirrorCatalog;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.PartitionKey;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.sql.Array;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The SQL endpoint over the mirror's Iceberg tables: its views return exactly what Iceberg's own reader returns
 * for every table and column, and its catalog describes the tables from Iceberg's metadata.
 */
class IcebergEndpointTest {
    @TempDir
    Path work;
    private MirroredData data;

    @BeforeEach
    void mirrorSomeOrders() {
        data = new MirroredData(work);
        data.store.createContainer(ContainerProperties.of("orders", "/customerId").withAnalyticalTtl(-1));
        data.store.createItem("orders", """
                {"id":"o1","customerId":"c1","status":"new","code":7,"total":10,
                 "items":[{"sku":"A","qty":1,"price":2.50},{"sku":"B","qty":2,"price":1.25}]}""");
        data.store.createItem("orders", """
                {"id":"o2","customerId":"c2","status":"new","code":"X-9","total":12,"items":[{"sku":"C","qty":3}]}""");
        data.sync();
        data.store.upsertItem("orders", """
                {"id":"o1","customerId":"c1","status":"shipped","code":7,"total":10.5,"tags":["a"],
                 "items":[{"sku":"B","qty":2,"price":1.25}]}""");
        data.store.deleteItem("orders", PartitionKey.of("c2"), "o2");
        data.store.createItem("orders", """
                {"id":"o3","customerId":"c1","status":"new","total":-0.0,"items":[]}""");
        data.sync();
    }

    @AfterEach
    void close() {
        data.close();
    }

    @Test
    void viewsReturnWhatIcebergsReaderReturns() throws Exception {
        try (SqlEndpoint endpoint = SqlEndpoint.open(data.mirrorDirectory(),
                SqlConfig.defaults().withRefreshInterval(Duration.ZERO));
                Connection sql = endpoint.connect();
                CatalogConnection catalog = MirrorCatalog.open(CatalogSettings.embedded(data.mirrorDirectory()))) {
            assertThat(rows(sql, "SELECT id, status, total FROM orders ORDER BY id")).containsExactly(
                    List.of("o1", "shipped", 10.5), List.of("o3", "new", -0.0));
            for (String table : List.of("orders", "orders__items", "orders_history")) {
                Table iceberg = catalog.catalog().loadTable(TableIdentifier.of("orders", table));
                String[] columns = iceberg.schema().columns().stream().map(Types.NestedField::name)
                        .toArray(String[]::new);
                String select = "SELECT " + String.join(", ", Arrays.stream(columns)
                        .map(column -> "\"" + column.replace("\"", "\"\"") + "\"").toList()) + " FROM " + table;
                assertThat(rows(sql, select)).as(table).containsExactlyInAnyOrderElementsOf(icebergRows(iceberg,
                        columns));
            }
            assertThat(rows(sql, "SELECT table_name, parent_table, json_path, \"rows\" FROM docmirror_tables "
                    + "ORDER BY table_name")).containsExactly(
                    listOf("orders", null, "$", 2L), List.of("orders__items", "orders", "$.items[*]", 1L));
            assertThat(rows(sql, "SELECT column_name, type, role, json_path FROM docmirror_columns "
                    + "WHERE table_name = 'orders' AND column_name IN ('id', 'total', 'tags', 'code') ORDER BY 1"))
                    .containsExactly(List.of("code", "BIGINT", "value", "$.code"),
                            List.of("id", "VARCHAR", "system", "$"),
                            List.of("tags", "VARCHAR[]", "list", "$.tags"),
                            List.of("total", "DOUBLE", "value", "$.total"));
            assertThat(rows(sql, "SELECT container, batch FROM docmirror_freshness"))
                    .containsExactly(List.of("orders", 2L));
            assertThat(rows(sql, "SELECT container, table_name, json_path, resolution FROM docmirror_conflicts"))
                    .containsExactly(List.of("orders", "orders", "$.code", "variant column code__varchar"));
        }
    }

    private static List<List<Object>> rows(Connection sql, String query) throws SQLException {
        List<List<Object>> rows = new ArrayList<>();
        try (Statement statement = sql.createStatement(); ResultSet result = statement.executeQuery(query)) {
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

    private static List<List<Object>> icebergRows(Table table, String... columns) throws IOException {
        List<List<Object>> rows = new ArrayList<>();
        try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
            for (Record record : records) {
                List<Object> row = new ArrayList<>();
                for (String column : columns) {
                    row.add(record.getField(column));
                }
                rows.add(normalized(row));
            }
        }
        return rows;
    }

    /** Both readers' values spelled alike: times as local UTC date-times, lists as lists. */
    private static List<Object> normalized(List<Object> row) {
        List<Object> values = new ArrayList<>();
        for (Object value : row) {
            if (value instanceof List<?> list) {
                values.add(normalized(new ArrayList<>(list)));
            } else if (value instanceof java.sql.Timestamp time) {
                values.add(time.toLocalDateTime());
            } else {
                values.add(value);
            }
        }
        return values;
    }

    private static List<Object> listOf(Object... values) {
        return new ArrayList<>(Arrays.asList(values));
    }
}
