package io.docmirror.bench;

import io.docmirror.sql.SqlConfig;
import io.docmirror.sql.SqlEndpoint;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Analytical queries ({@link OrderQuery#set}) on the mirror (its Iceberg data files less the rows their deletion
 * vectors delete, through the SQL endpoint) against DuckDB on one clean Parquet file per table holding the same rows
 * ({@link CleanFileReference}), and against DuckDB reading the raw JSON Lines, in the same run, after 10% of the
 * orders were updated and mirrored in one sync (the stress case). Usage: {@code SqlQueryBenchmark [orders] [workDir]}.
 */
public final class SqlQueryBenchmark {
    private static final int RUNS = 5;
    private static final int RAW_RUNS = 2;

    private SqlQueryBenchmark() {
    }

    /** Medians in milliseconds; {@code rawMillis} is NaN where the raw JSON was not measured. */
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
        List<OrderQuery> queries = OrderQuery.set("order-" + (orders * 7L / 9));
        String raw = "read_json_auto('" + data.jsonLines() + "', format = 'newline_delimited')";
        try (SqlEndpoint endpoint = SqlEndpoint.open(data.mirrorDirectory(), SqlConfig.defaults());
                CleanFileReference clean = CleanFileReference.open(endpoint, work.resolve("clean"))) {
            return compare(clean, queries, Optional.of(raw), out);
        }
    }

    /**
     * Writes the clean files from the mirror's current state, then times each query on both (and on the raw JSON,
     * when given: a {@code read_json_auto(...)} of the same orders) and prints a table of the medians.
     */
    static List<Timing> compare(CleanFileReference clean, List<OrderQuery> queries, Optional<String> raw,
            PrintStream out) throws Exception {
        printFiles(clean, clean.rewrite(), out);
        out.printf(Locale.ROOT, "%-36s %12s %12s %8s%s%n", "query (median ms)", "mirror", "clean file", "ratio",
                raw.isPresent() ? String.format(Locale.ROOT, " %14s %10s", "raw JSON lines", "speed-up") : "");
        List<Timing> timings = new ArrayList<>();
        for (OrderQuery query : queries) {
            clean.checkSameAnswer(query);
            Timing timing = new Timing(query.name(),
                    CleanFileReference.medianMillis(clean.mirror(), clean.onMirror(query), RUNS),
                    CleanFileReference.medianMillis(clean.reference(), clean.onClean(query), RUNS),
                    raw.isPresent() ? CleanFileReference.medianMillis(clean.reference(),
                            query.onRawJson(raw.get()), RAW_RUNS) : Double.NaN);
            timings.add(timing);
            out.printf(Locale.ROOT, "%-36s %12.1f %12.1f %8.2f%s%n", timing.query(), timing.mirrorMillis(),
                    timing.cleanMillis(), timing.ratio(), raw.isPresent() ? String.format(Locale.ROOT,
                            " %14.1f %9.0fx", timing.rawMillis(), timing.rawMillis() / timing.mirrorMillis()) : "");
        }
        return timings;
    }

    /** Each table's rows, and how many data files the mirror has for it. */
    private static void printFiles(CleanFileReference clean, Map<String, Long> rows, PrintStream out)
            throws SQLException {
        for (Map.Entry<String, Long> table : rows.entrySet()) {
            out.printf(Locale.ROOT, "%s: %,d rows, %d files in the mirror%n", table.getKey(), table.getValue(),
                    CleanFileReference.count(clean.mirror(), "SELECT files FROM docmirror_tables WHERE table_name = '"
                            + table.getKey() + "'"));
        }
    }
}
