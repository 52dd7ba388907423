package io.docmirror.bench;

import io.docmirror.demo.DemoDataset;
import io.docmirror.sql.ArrowExport;
import io.docmirror.sql.SqlConfig;
import io.docmirror.sql.SqlEndpoint;

import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.duckdb.DuckDBConnection;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Analytical queries on the mirror (merge-on-read over its base and delta files, through the SQL endpoint) against
 * DuckDB on one clean Parquet file per table holding the same rows, and against DuckDB reading the raw JSON Lines,
 * in the same run. Usage: {@code SqlQueryBenchmark [orders] [workDir]}.
 */
public final class SqlQueryBenchmark {
    private static final String ORDERS = DemoDataset.CONTAINER;
    private static final String ITEMS = DemoDataset.CONTAINER + "__items";
    private static final int RUNS = 5;
    private static final int RAW_RUNS = 2;

    private SqlQueryBenchmark() {
    }

    /** One query as each side spells it: the mirror's and the clean Parquet's SQL differ only in table names. */
    record Query(String name, String tablesSql, String rawJsonSql) {
    }

    public record Timing(String query, double mirrorMillis, double cleanMillis, double rawMillis) {
        public double ratio() {
            return mirrorMillis / cleanMillis;
        }
    }

    public static void main(String[] args) throws Exception {
        int orders = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        Path work = args.length > 1 ? Path.of(args[1]) : Files.createTempDirectory("docmirror-sql-bench");
        run(orders, work, System.out);
    }

    public static List<Timing> run(int orders, Path work, PrintStream out) throws Exception {
        MirroredOrders data = MirroredOrders.build(work, orders, 0.10, out);
        String lookupId = "order-" + (orders * 7L / 9);
        List<Query> queries = List.of(
                new Query("group-by over the child table",
                        "SELECT name, count(*) AS lines, round(sum(quantity * unitPrice), 2) AS revenue FROM {items} "
                                + "GROUP BY name ORDER BY name",
                        "SELECT item.name, count(*), round(sum(item.quantity * item.unitPrice), 2) FROM "
                                + "(SELECT unnest(items) AS item FROM {raw}) GROUP BY 1 ORDER BY 1"),
                new Query("join of parent and child",
                        "SELECT o.shippingMethod, count(*) AS lines, sum(i.quantity) AS units FROM {orders} o "
                                + "JOIN {items} i ON i._id = o.id GROUP BY ALL ORDER BY 1",
                        "SELECT shippingMethod, count(*), sum(item.quantity) FROM (SELECT shippingMethod, "
                                + "unnest(items) AS item FROM {raw}) GROUP BY ALL ORDER BY 1"),
                new Query("point lookup by id",
                        "SELECT id, total, customer__billingAddress__city FROM {orders} WHERE id = '" + lookupId + "'",
                        "SELECT id, total, customer.billingAddress.city FROM {raw} WHERE id = '" + lookupId + "'"),
                new Query("filter on a flattened nested field",
                        "SELECT count(*), round(sum(total), 2) FROM {orders} "
                                + "WHERE customer__billingAddress__state = 'WA' "
                                + "AND customer__shippingAddress__city = 'Seattle'",
                        "SELECT count(*), round(sum(total), 2) FROM {raw} WHERE customer.billingAddress.state = 'WA' "
                                + "AND customer.shippingAddress.city = 'Seattle'"));

        Path clean = work.resolve("clean");
        Files.createDirectories(clean);
        List<Timing> timings = new ArrayList<>();
        try (SqlEndpoint endpoint = SqlEndpoint.open(data.mirrorDirectory(), SqlConfig.defaults());
                Connection mirror = endpoint.connect();
                Connection reference = DriverManager.getConnection("jdbc:duckdb:");
                Statement mirrorStatement = mirror.createStatement();
                Statement referenceStatement = reference.createStatement()) {
            referenceStatement.execute("SET memory_limit = '" + SqlConfig.defaults().memoryLimit() + "'");
            for (String table : List.of(ORDERS, ITEMS)) {
                long rows = copyToOneFile(mirrorStatement, table, reference, clean.resolve(table + ".parquet"));
                out.printf(Locale.ROOT, "%s: %,d rows, %d files in the mirror%n", table, rows,
                        count(mirrorStatement, "SELECT files FROM docmirror_tables WHERE table_name = '" + table
                                + "'"));
            }
            out.printf(Locale.ROOT, "%-36s %12s %12s %8s %14s %10s%n", "query (median ms)", "mirror",
                    "clean file", "ratio", "raw JSON lines", "speed-up");
            for (Query query : queries) {
                String onMirror = query.tablesSql().replace("{orders}", ORDERS).replace("{items}", ITEMS);
                String onClean = query.tablesSql()
                        .replace("{orders}", "read_parquet('" + clean.resolve(ORDERS + ".parquet") + "')")
                        .replace("{items}", "read_parquet('" + clean.resolve(ITEMS + ".parquet") + "')");
                String onRaw = query.rawJsonSql().replace("{raw}",
                        "read_json_auto('" + data.jsonLines() + "', format = 'newline_delimited')");
                String mirrorRows = rows(mirrorStatement, onMirror);
                String cleanRows = rows(referenceStatement, onClean);
                if (!mirrorRows.equals(cleanRows)) {
                    throw new IllegalStateException("The mirror and the clean file disagree on '" + query.name()
                            + "':\n" + mirrorRows + "\n" + cleanRows);
                }
                Timing timing = new Timing(query.name(), median(mirrorStatement, onMirror, RUNS),
                        median(referenceStatement, onClean, RUNS), median(referenceStatement, onRaw, RAW_RUNS));
                timings.add(timing);
                out.printf(Locale.ROOT, "%-36s %12.1f %12.1f %8.2f %14.1f %9.0fx%n", timing.query(),
                        timing.mirrorMillis(), timing.cleanMillis(), timing.ratio(), timing.rawMillis(),
                        timing.rawMillis() / timing.mirrorMillis());
            }
        }
        return timings;
    }

    /**
     * The reference's file: the mirror's current state of {@code table}, read through the endpoint as Arrow and
     * written by DuckDB as one Parquet file (the endpoint itself writes no files).
     */
    private static long copyToOneFile(Statement mirror, String table, Connection reference, Path file)
            throws Exception {
        // A connection of its own, closed before the allocator: DuckDB holds on to the last Arrow batch it
        // imported until then, and the allocator refuses to close while any of its memory is held.
        try (BufferAllocator allocator = new RootAllocator();
                ResultSet rows = mirror.executeQuery("SELECT * FROM " + table);
                ArrowArrayStream stream = ArrowArrayStream.allocateNew(allocator);
                Connection copier = DriverManager.getConnection("jdbc:duckdb:");
                Statement statement = copier.createStatement()) {
            // The stream owns the reader from here: it is closed when DuckDB releases the stream.
            Data.exportArrayStream(allocator, ArrowExport.of(rows, allocator, 65_536), stream);
            copier.unwrap(DuckDBConnection.class).registerArrowStream("mirror_rows", stream);
            statement.execute("COPY (SELECT * FROM mirror_rows) TO '" + file + "' (FORMAT parquet)");
        }
        try (Statement statement = reference.createStatement()) {
            return count(statement, "SELECT count(*) FROM read_parquet('" + file + "')");
        }
    }

    private static long count(Statement statement, String sql) throws SQLException {
        try (ResultSet result = statement.executeQuery(sql)) {
            result.next();
            return result.getLong(1);
        }
    }

    private static String rows(Statement statement, String sql) throws SQLException {
        StringBuilder rows = new StringBuilder();
        try (ResultSet result = statement.executeQuery(sql)) {
            int columns = result.getMetaData().getColumnCount();
            while (result.next()) {
                for (int column = 1; column <= columns; column++) {
                    rows.append(result.getString(column)).append(column < columns ? "," : "\n");
                }
            }
        }
        return rows.toString();
    }

    private static double median(Statement statement, String sql, int runs) throws SQLException {
        rows(statement, sql);
        double[] millis = new double[runs];
        for (int run = 0; run < runs; run++) {
            long startedAt = System.nanoTime();
            rows(statement, sql);
            millis[run] = (System.nanoTime() - startedAt) / 1e6;
        }
        Arrays.sort(millis);
        return runs % 2 == 1 ? millis[runs / 2] : (millis[runs / 2 - 1] + millis[runs / 2]) / 2;
    }
}
