package io.docmirror.sql;

import io.docmirror.sql.flight.FlightConfig;
import io.docmirror.sql.flight.FlightSqlServer;
import io.docmirror.store.ContainerProperties;
import org.apache.arrow.flight.CallOption;
import org.apache.arrow.flight.FlightClient;
import org.apache.arrow.flight.FlightStream;
import org.apache.arrow.flight.Location;
import org.apache.arrow.flight.sql.FlightSqlClient;
import org.apache.arrow.flight.sql.FlightSqlColumnMetadata;
import org.apache.arrow.flight.sql.impl.FlightSql.SqlInfo;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.UInt4Vector;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What tools ask before they query, through real clients: the Arrow project's Flight SQL JDBC driver (as sqlline,
 * DBeaver and connection pools use it) and its plain Flight SQL client.
 */
class FlightSqlMetadataTest {
    @TempDir
    Path work;

    private MirroredData data;
    private SqlEndpoint endpoint;
    private FlightSqlServer server;

    @BeforeEach
    void serveOrdersWithItemsAndDiscounts() throws Exception {
        data = new MirroredData(work);
        data.store.createContainer(ContainerProperties.of("orders", "/customerId").withAnalyticalTtl(-1));
        data.store.createItem("orders", """
                {"id":"o1","customerId":"c1","paid":true,"total":12.345678901234567890123,"tags":["a","b"],
                 "items":[{"sku":"A","qty":1,"discounts":[{"code":"X"}]},{"sku":"B","qty":2}]}""");
        data.store.createItem("orders", """
                {"id":"o2","customerId":"c2","paid":false,"total":3,"tags":[],"items":[{"sku":"C","qty":3}]}""");
        data.sync();
        endpoint = SqlEndpoint.open(data.mirrorDirectory(), SqlConfig.defaults());
        server = FlightSqlServer.start(endpoint, FlightConfig.defaults().withListener("127.0.0.1", 0)
                .withPassword("s3cret-for-tests-only-0123456789ab"));
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
        endpoint.close();
        data.close();
    }

    @Test
    void everyDatabaseMetaDataMethodWithoutArgumentsAnswers() throws Exception {
        try (Connection connection = connect()) {
            DatabaseMetaData metadata = connection.getMetaData();
            Map<String, String> failures = new TreeMap<>();
            int called = 0;
            for (Method method : DatabaseMetaData.class.getMethods()) {
                if (method.getParameterCount() != 0 || Modifier.isStatic(method.getModifiers())) {
                    continue;
                }
                called++;
                try {
                    Object answer = method.invoke(metadata);
                    if (answer instanceof ResultSet result) {
                        while (result.next()) {
                            result.getObject(1);
                        }
                        result.close();
                    }
                } catch (InvocationTargetException e) {
                    failures.put(method.getName(), String.valueOf(e.getCause()));
                }
            }
            assertThat(called).isGreaterThan(100);
            assertThat(failures).isEmpty();

            assertThat(metadata.supportsTransactions()).isFalse();
            assertThat(metadata.getDefaultTransactionIsolation()).isEqualTo(Connection.TRANSACTION_NONE);
            assertThat(metadata.supportsOuterJoins()).isTrue();
            assertThat(metadata.supportsFullOuterJoins()).isTrue();
            assertThat(metadata.supportsCorrelatedSubqueries()).isTrue();
            assertThat(metadata.supportsUnionAll()).isTrue();
            assertThat(metadata.isReadOnly()).isTrue();
            assertThat(metadata.getIdentifierQuoteString()).isEqualTo("\"");
            assertThat(metadata.getSearchStringEscape()).isEqualTo("\\");
            assertThat(metadata.getMaxColumnsInSelect()).isEqualTo(SqlConfig.defaults().columnLimit());
            assertThat(metadata.getSQLKeywords()).contains("QUALIFY");
            assertThat(metadata.getNumericFunctions()).contains("ABS");
            assertThat(metadata.supportsConvert(Types.BIGINT, Types.VARCHAR)).isTrue();
            assertThat(metadata.supportsConvert(Types.DATE, Types.BIGINT)).isFalse();
        }
    }

    @Test
    void aRequestMixingKnownAndUnknownIdsGetsTheKnownOnes() throws Exception {
        try (BufferAllocator allocator = new RootAllocator();
                FlightClient flight = FlightClient.builder(allocator,
                        Location.forGrpcInsecure("127.0.0.1", server.port())).build();
                FlightSqlClient client = new FlightSqlClient(flight)) {
            CallOption token = flight.authenticateBasicToken("docmirror", "s3cret-for-tests-only-0123456789ab").orElseThrow();
            int[] asked = {SqlInfo.FLIGHT_SQL_SERVER_NAME_VALUE, SqlInfo.FLIGHT_SQL_SERVER_SUBSTRAIT_MIN_VERSION_VALUE,
                    SqlInfo.FLIGHT_SQL_SERVER_SUBSTRAIT_MAX_VERSION_VALUE, 9_999,
                    SqlInfo.SQL_SUPPORTED_CONCURRENCIES_FOR_RESULT_SET_FORWARD_ONLY_VALUE,
                    SqlInfo.SQL_IDENTIFIER_QUOTE_CHAR_VALUE};
            List<Long> answered = new ArrayList<>();
            var info = client.getSqlInfo(asked, token);
            try (FlightStream stream = client.getStream(info.getEndpoints().get(0).getTicket(), token)) {
                while (stream.next()) {
                    UInt4Vector names = (UInt4Vector) stream.getRoot().getVector("info_name");
                    for (int row = 0; row < stream.getRoot().getRowCount(); row++) {
                        answered.add(names.getValueAsLong(row));
                    }
                }
            }
            assertThat(answered).containsExactly((long) SqlInfo.FLIGHT_SQL_SERVER_NAME_VALUE,
                    (long) SqlInfo.SQL_SUPPORTED_CONCURRENCIES_FOR_RESULT_SET_FORWARD_ONLY_VALUE,
                    (long) SqlInfo.SQL_IDENTIFIER_QUOTE_CHAR_VALUE);
        }
    }

    @Test
    void resultColumnsCarryTheirTypePrecisionAndScale() throws SQLException {
        try (Connection connection = connect(); Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery("SELECT o.id, o.paid, o.total, o.tags, f.committed_at, "
                        + "i.qty FROM orders o JOIN orders__items i ON i._id = o.id, docmirror_freshness f "
                        + "ORDER BY o.id, i._idx LIMIT 1")) {
            ResultSetMetaData columns = result.getMetaData();
            assertThat(columns.getColumnType(1)).isEqualTo(Types.VARCHAR);
            assertThat(columns.getColumnType(2)).isEqualTo(Types.BOOLEAN);
            assertThat(columns.getColumnType(3)).isEqualTo(Types.DECIMAL);
            assertThat(columns.getPrecision(3)).isEqualTo(38);
            assertThat(columns.getScale(3)).isEqualTo(21);
            assertThat(columns.getColumnType(4)).isEqualTo(Types.ARRAY);
            assertThat(columns.getColumnType(5)).isEqualTo(Types.TIMESTAMP);
            assertThat(columns.getPrecision(5)).isEqualTo("yyyy-mm-dd hh:mm:ss.ffffff".length());
            assertThat(columns.getScale(5)).isEqualTo(6);
            assertThat(columns.getColumnType(6)).isEqualTo(Types.BIGINT);
            assertThat(columns.getPrecision(6)).isEqualTo(19);
            assertThat(columns.isReadOnly(1)).isTrue();

            assertThat(result.next()).isTrue();
            assertThat(result.getBigDecimal(3)).isEqualByComparingTo("12.345678901234567890123");
        }
    }

    @Test
    void aStatementsSchemaNamesDuckDbsTypesWithoutRunningIt() throws Exception {
        try (BufferAllocator allocator = new RootAllocator();
                FlightClient flight = FlightClient.builder(allocator,
                        Location.forGrpcInsecure("127.0.0.1", server.port())).build();
                FlightSqlClient client = new FlightSqlClient(flight)) {
            CallOption token = flight.authenticateBasicToken("docmirror", "s3cret-for-tests-only-0123456789ab").orElseThrow();
            Schema schema = client.getExecuteSchema("SELECT total, tags, id FROM orders", token).getSchema();
            assertThat(schema.getFields()).extracting(Field::getName).containsExactly("total", "tags", "id");
            FlightSqlColumnMetadata total = new FlightSqlColumnMetadata(schema.getFields().get(0).getMetadata());
            assertThat(total.getTypeName()).isEqualTo("DECIMAL");
            assertThat(total.getPrecision()).isEqualTo(38);
            assertThat(total.getScale()).isEqualTo(21);
            assertThat(new FlightSqlColumnMetadata(schema.getFields().get(1).getMetadata()).getTypeName())
                    .isEqualTo("VARCHAR[]");
        }
    }

    @Test
    void mirroredTablesAreTablesWithKeysThatJoinThem() throws SQLException {
        try (Connection connection = connect()) {
            DatabaseMetaData metadata = connection.getMetaData();
            assertThat(names(metadata.getTables(null, null, "%", new String[] {"TABLE"}), "TABLE_NAME"))
                    .contains("orders", "orders__items", "orders__items__discounts", "docmirror_columns")
                    .doesNotContain("orders_history", "docmirror_freshness");

            assertThat(keyColumns(metadata.getPrimaryKeys(null, null, "orders"))).containsExactly("1 id", "2 _pk");
            assertThat(keyColumns(metadata.getPrimaryKeys(null, null, "orders__items")))
                    .containsExactly("1 _id", "2 _pk", "3 _row");
            assertThat(keyColumns(metadata.getPrimaryKeys(null, null, "orders_history"))).isEmpty();

            assertThat(foreignKeys(metadata.getImportedKeys(null, null, "orders__items")))
                    .containsExactly("orders.id <- orders__items._id", "orders._pk <- orders__items._pk");
            assertThat(foreignKeys(metadata.getImportedKeys(null, null, "orders__items__discounts")))
                    .containsExactly("orders__items._id <- orders__items__discounts._id",
                            "orders__items._pk <- orders__items__discounts._pk",
                            "orders__items._row <- orders__items__discounts._parent_row");
            assertThat(foreignKeys(metadata.getExportedKeys(null, null, "orders")))
                    .containsExactly("orders.id <- orders__items._id", "orders._pk <- orders__items._pk");
            assertThat(foreignKeys(metadata.getCrossReference(null, null, "orders", null, null, "orders__items")))
                    .hasSize(2);
        }
        // The keys hold: a join on them finds each item's one order.
        try (Connection connection = connect(); Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery("SELECT count(*), count(o.id) FROM orders__items i "
                        + "LEFT JOIN orders o ON o.id = i._id AND o._pk = i._pk")) {
            assertThat(result.next()).isTrue();
            assertThat(result.getLong(1)).isEqualTo(3);
            assertThat(result.getLong(2)).isEqualTo(3);
        }
    }

    @Test
    void namesMatchIgnoringCaseAsDuckDbMatchesThem() throws SQLException {
        try (Connection connection = connect()) {
            DatabaseMetaData metadata = connection.getMetaData();
            // The JDBC driver says it stores identifiers in upper case, so tools such as sqlline ask so.
            List<String> columns = names(metadata.getColumns(null, null, "ORDERS", "%"), "COLUMN_NAME");
            assertThat(columns).contains("id", "_pk", "total", "tags");
            // sqlline's !columns asks in the connection's catalog.
            assertThat(names(metadata.getColumns(connection.getCatalog(), null, "orders", "%"), "COLUMN_NAME"))
                    .as("in catalog " + connection.getCatalog()).contains("id", "_pk", "total", "tags");
            try (ResultSet total = metadata.getColumns(null, null, "orders", "total")) {
                assertThat(total.next()).isTrue();
                assertThat(total.getString("TYPE_NAME")).isEqualTo("DECIMAL");
                assertThat(total.getInt("COLUMN_SIZE")).isEqualTo(38);
                assertThat(total.getInt("DECIMAL_DIGITS")).isEqualTo(21);
            }
        }
    }

    @Test
    void typeInfoListsDuckDbsTypesWithTheirXdbcCodes() throws Exception {
        try (BufferAllocator allocator = new RootAllocator();
                FlightClient flight = FlightClient.builder(allocator,
                        Location.forGrpcInsecure("127.0.0.1", server.port())).build();
                FlightSqlClient client = new FlightSqlClient(flight)) {
            CallOption token = flight.authenticateBasicToken("docmirror", "s3cret-for-tests-only-0123456789ab").orElseThrow();
            Map<String, Integer> codes = new TreeMap<>();
            var info = client.getXdbcTypeInfo(token);
            try (FlightStream stream = client.getStream(info.getEndpoints().get(0).getTicket(), token)) {
                while (stream.next()) {
                    for (int row = 0; row < stream.getRoot().getRowCount(); row++) {
                        codes.put(stream.getRoot().getVector("type_name").getObject(row).toString(),
                                (Integer) stream.getRoot().getVector("data_type").getObject(row));
                    }
                }
            }
            assertThat(codes).containsEntry("BIGINT", Types.BIGINT).containsEntry("DECIMAL", Types.DECIMAL)
                    .containsEntry("VARCHAR", Types.VARCHAR).containsEntry("TIMESTAMP", Types.TIMESTAMP)
                    .containsEntry("BOOLEAN", Types.BIT).containsEntry("DOUBLE", Types.DOUBLE);

            var decimals = client.getXdbcTypeInfo(Types.DECIMAL, token);
            try (FlightStream stream = client.getStream(decimals.getEndpoints().get(0).getTicket(), token)) {
                assertThat(stream.next()).isTrue();
                assertThat(stream.getRoot().getRowCount()).isEqualTo(1);
                assertThat(stream.getRoot().getVector("create_params").getObject(0).toString())
                        .isEqualTo("[\"precision\",\"scale\"]");
            }
        }
    }

    private Connection connect() throws SQLException {
        Properties properties = new Properties();
        properties.setProperty("user", "docmirror");
        properties.setProperty("password", "s3cret-for-tests-only-0123456789ab");
        return DriverManager.getConnection(server.jdbcUrl(), properties);
    }

    private static List<String> names(ResultSet result, String column) throws SQLException {
        List<String> names = new ArrayList<>();
        try (result) {
            while (result.next()) {
                names.add(result.getString(column));
            }
        }
        return names;
    }

    private static List<String> keyColumns(ResultSet result) throws SQLException {
        List<String> columns = new ArrayList<>();
        try (result) {
            while (result.next()) {
                columns.add(result.getInt("KEY_SEQ") + " " + result.getString("COLUMN_NAME"));
            }
        }
        return columns;
    }

    private static List<String> foreignKeys(ResultSet result) throws SQLException {
        List<String> keys = new ArrayList<>();
        try (result) {
            while (result.next()) {
                keys.add(result.getString("PKTABLE_NAME") + "." + result.getString("PKCOLUMN_NAME") + " <- "
                        + result.getString("FKTABLE_NAME") + "." + result.getString("FKCOLUMN_NAME"));
                assertThat(result.getInt("DELETE_RULE")).isEqualTo(DatabaseMetaData.importedKeyCascade);
            }
        }
        return keys;
    }
}
