package io.docmirror.bench;

import java.io.PrintStream;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The reference for a backfill of the demo's orders: DuckDB (in this process, every core) flattening the same JSON
 * Lines into the tables the mirror makes of them, as Parquet files: the root's scalar columns (nested objects as
 * dotted columns), the line items and their discounts unnested with their parent's key and position, and the history
 * (id, partition key, a sequence number, a timestamp and the document's text). No Iceberg metadata, no schema
 * inference beyond {@code read_json}'s.
 */
final class FlattenedOrdersInDuckDb {
    /** The order's scalar fields, nested objects' included: the root table's columns. */
    private static final List<String> ROOT_COLUMNS = List.of("id", "customerId", "orderNumber", "customer.firstName",
            "customer.lastName", "customer.email", "customer.memberSince", "customer.billingAddress.street",
            "customer.billingAddress.city", "customer.billingAddress.state", "customer.billingAddress.zip",
            "customer.billingAddress.country", "customer.shippingAddress.street", "customer.shippingAddress.city",
            "customer.shippingAddress.state", "customer.shippingAddress.zip", "customer.shippingAddress.country",
            "orderDate", "shippingMethod", "status", "total", "currency", "updatedAt");

    private FlattenedOrdersInDuckDb() {
    }

    /** Writes the tables into {@code directory}; returns each table's rows, by name, counted from its file. */
    static Map<String, Long> write(Path jsonLines, Path directory) throws SQLException {
        Map<String, String> tables = new LinkedHashMap<>();
        String dotted = ROOT_COLUMNS.stream().map(path -> path + " AS \"" + path + "\"")
                .collect(Collectors.joining(", "));
        tables.put("root", "SELECT " + dotted + " FROM orders");
        String items = "SELECT id, customerId, unnest(items) AS item, generate_subscripts(items, 1) AS position "
                + "FROM orders";
        tables.put("items", "SELECT id, customerId, position, item.sku, item.name, item.quantity, item.unitPrice FROM ("
                + items + ")");
        tables.put("discounts", "SELECT id, customerId, item_position, position, discount.code, discount.percent FROM ("
                + "SELECT id, customerId, position AS item_position, unnest(item.discounts) AS discount, "
                + "generate_subscripts(item.discounts, 1) AS position FROM (" + items + "))");
        tables.put("history", "SELECT json->>'id' AS id, json->>'customerId' AS pk, row_number() OVER () AS lsn, "
                + "current_timestamp AS ts, json AS document FROM read_ndjson_objects('" + jsonLines + "')");
        Map<String, Long> rows = new LinkedHashMap<>();
        try (Connection duckDb = DriverManager.getConnection("jdbc:duckdb:");
                Statement statement = duckDb.createStatement()) {
            statement.execute("CREATE TEMP TABLE orders AS SELECT * FROM read_json('" + jsonLines
                    + "', format = 'newline_delimited')");
            for (Map.Entry<String, String> table : tables.entrySet()) {
                statement.execute("COPY (" + table.getValue() + ") TO '" + file(directory, table.getKey())
                        + "' (FORMAT parquet)");
            }
            for (String table : tables.keySet()) {
                try (ResultSet count = statement.executeQuery("SELECT count(*) FROM '" + file(directory, table)
                        + "'")) {
                    count.next();
                    rows.put(table, count.getLong(1));
                }
            }
        }
        return rows;
    }

    static void print(Map<String, Long> rows, PrintStream out) {
        rows.forEach((table, count) -> out.printf(Locale.ROOT, "  %s.parquet: %,d rows%n", table, count));
    }

    private static Path file(Path directory, String table) {
        return directory.resolve(table + ".parquet");
    }
}
