package io.docmirror.bench;

import io.docmirror.demo.DemoDataset;
import io.docmirror.sql.ArrowExport;
import io.docmirror.sql.SqlEndpoint;

import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.duckdb.DuckDBConnection;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the SQL benchmarks measure the mirror against: the mirror's current state of the orders and their line items,
 * read through the SQL endpoint and written by DuckDB as one clean Parquet file per table, queried by a DuckDB of its
 * own (the project's version, the endpoint's memory limit, all threads). Runs each {@link OrderQuery} on both sides.
 *
 * <p>The files are written from the endpoint's current catalog generation, so they hold exactly the rows the
 * mirror's queries see until the endpoint opens a newer one: the benchmarks open the endpoint with a refresh interval
 * longer than the run and {@link SqlEndpoint#refresh refresh} it themselves, then {@link #rewrite} the files.
 */
final class CleanFileReference implements AutoCloseable {
    static final String ORDERS = DemoDataset.CONTAINER;
    static final String ITEMS = DemoDataset.CONTAINER + "__items";

    private final Path directory;
    private final Connection mirror;
    private final Statement mirrorStatement;
    private final Connection reference;
    private final Statement referenceStatement;

    private CleanFileReference(Path directory, Connection mirror, Connection reference) throws SQLException {
        this.directory = directory;
        this.mirror = mirror;
        this.mirrorStatement = mirror.createStatement();
        this.reference = reference;
        this.referenceStatement = reference.createStatement();
    }

    /** A reference whose files go into {@code directory}, comparing with a connection of {@code endpoint}. */
    static CleanFileReference open(SqlEndpoint endpoint, Path directory) throws Exception {
        Files.createDirectories(directory);
        Connection mirror = endpoint.connect();
        Connection reference = DriverManager.getConnection("jdbc:duckdb:");
        try {
            CleanFileReference opened = new CleanFileReference(directory, mirror, reference);
            opened.referenceStatement.execute("SET memory_limit = '" + endpoint.config().memoryLimit() + "'");
            return opened;
        } catch (SQLException | RuntimeException e) {
            reference.close();
            mirror.close();
            throw e;
        }
    }

    /**
     * Writes the clean files anew from the mirror's current state (the endpoint's current generation).
     *
     * @return the rows of each table's file, by table
     */
    Map<String, Long> rewrite() throws Exception {
        Map<String, Long> rows = new LinkedHashMap<>();
        for (String table : new String[] {ORDERS, ITEMS}) {
            rows.put(table, copyToOneFile(table, file(table)));
        }
        return rows;
    }

    /** The query on the mirror's views. */
    String onMirror(OrderQuery query) {
        return query.onTables(ORDERS, ITEMS);
    }

    /** The query on the clean files. */
    String onClean(OrderQuery query) {
        return query.onTables("read_parquet('" + file(ORDERS) + "')", "read_parquet('" + file(ITEMS) + "')");
    }

    /**
     * Runs the query on both sides and fails unless they give the same rows, which they must while the files hold
     * the state the endpoint's generation shows.
     */
    void checkSameAnswer(OrderQuery query) throws SQLException {
        String mirrorRows = rows(mirrorStatement, onMirror(query));
        String cleanRows = rows(referenceStatement, onClean(query));
        if (!mirrorRows.equals(cleanRows)) {
            throw new IllegalStateException("The mirror and the clean file disagree on '" + query.name() + "':\n"
                    + mirrorRows + "\n" + cleanRows);
        }
    }

    /** One run of the query on the mirror, in milliseconds, its whole result read. */
    double mirrorMillis(OrderQuery query) throws SQLException {
        return millis(mirrorStatement, onMirror(query));
    }

    /** One run of the query on the clean files, in milliseconds, its whole result read. */
    double cleanMillis(OrderQuery query) throws SQLException {
        return millis(referenceStatement, onClean(query));
    }

    /** A statement on the mirror, through the endpoint. */
    Statement mirror() {
        return mirrorStatement;
    }

    /** A statement on the reference's own DuckDB. */
    Statement reference() {
        return referenceStatement;
    }

    @Override
    public void close() throws SQLException {
        // Closing a connection closes its statements.
        try {
            reference.close();
        } finally {
            mirror.close();
        }
    }

    /** The median of {@code runs} runs of {@code sql}, after one run not counted (warm-up). */
    static double medianMillis(Statement statement, String sql, int runs) throws SQLException {
        rows(statement, sql);
        double[] millis = new double[runs];
        for (int run = 0; run < runs; run++) {
            millis[run] = millis(statement, sql);
        }
        Arrays.sort(millis);
        return runs % 2 == 1 ? millis[runs / 2] : (millis[runs / 2 - 1] + millis[runs / 2]) / 2;
    }

    private static double millis(Statement statement, String sql) throws SQLException {
        long startedAt = System.nanoTime();
        rows(statement, sql);
        return (System.nanoTime() - startedAt) / 1e6;
    }

    private Path file(String table) {
        return directory.resolve(table + ".parquet");
    }

    /**
     * The reference's file: the mirror's current state of {@code table}, read through the endpoint as Arrow and
     * written by DuckDB as one Parquet file (the endpoint itself writes no files).
     */
    private long copyToOneFile(String table, Path file) throws Exception {
        // A connection of its own, closed before the allocator: DuckDB holds on to the last Arrow batch it
        // imported until then, and the allocator refuses to close while any of its memory is held.
        try (BufferAllocator allocator = new RootAllocator();
                ResultSet rows = mirrorStatement.executeQuery("SELECT * FROM " + table);
                ArrowArrayStream stream = ArrowArrayStream.allocateNew(allocator);
                Connection copier = DriverManager.getConnection("jdbc:duckdb:");
                Statement statement = copier.createStatement()) {
            // The stream owns the reader from here: it is closed when DuckDB releases the stream.
            Data.exportArrayStream(allocator, ArrowExport.of(rows, allocator, 65_536), stream);
            copier.unwrap(DuckDBConnection.class).registerArrowStream("mirror_rows", stream);
            statement.execute("COPY (SELECT * FROM mirror_rows) TO '" + file + "' (FORMAT parquet)");
        }
        return count(referenceStatement, "SELECT count(*) FROM read_parquet('" + file + "')");
    }

    static long count(Statement statement, String sql) throws SQLException {
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
}
