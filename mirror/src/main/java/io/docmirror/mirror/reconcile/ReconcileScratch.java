package io.docmirror.mirror.reconcile;

import io.docmirror.mirror.DirectoryTree;
import org.duckdb.DuckDBConnection;
import org.duckdb.DuckDBDriver;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;

import static io.docmirror.layout.TableView.literal;

/**
 * The temporary directory of one reconcile ({@code docmirror-reconcile-*}), where DuckDB keeps on disk whatever grows
 * with the container: its documents, their history and the store's side of the comparison. A reconcile then needs
 * the same memory whatever the container's size, and disk instead. The directory goes when the reconcile ends, also
 * when it fails.
 */
final class ReconcileScratch implements AutoCloseable {
    /**
     * What each database may hold in memory; beyond it, DuckDB spills its joins and sorts to disk. At 256 MB, copying
     * a million orders' line items sorted by key ran out of memory (DuckDB keeps some of a sort's blocks pinned).
     */
    private static final String MEMORY_LIMIT = "1GB";

    private final Path path;

    private ReconcileScratch(Path path) {
        this.path = path;
    }

    /** A new empty directory in {@code parent} (created when missing). */
    static ReconcileScratch create(Path parent) {
        try {
            Files.createDirectories(parent);
            return new ReconcileScratch(Files.createTempDirectory(parent, "docmirror-reconcile-"));
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot create a directory for the reconcile's work in " + parent, e);
        }
    }

    /**
     * A new DuckDB database in a file here, which holds at most {@link #MEMORY_LIMIT} in memory and spills the rest
     * beside its file. Its results stream as they are read, instead of being held whole in memory first; so a
     * connection has one result open at a time, and reading several at once takes a {@link
     * DuckDBConnection#duplicate()} each.
     */
    DuckDBConnection openDatabase(String name) throws SQLException {
        Properties properties = new Properties();
        properties.setProperty(DuckDBDriver.JDBC_STREAM_RESULTS, "true");
        DuckDBConnection connection = (DuckDBConnection) DriverManager.getConnection("jdbc:duckdb:"
                + path.resolve(name + ".duckdb"), properties);
        try (Statement statement = connection.createStatement()) {
            statement.execute("SET memory_limit = " + literal(MEMORY_LIMIT));
            statement.execute("SET temp_directory = " + literal(path.resolve(name + ".spill").toString()));
        } catch (SQLException e) {
            connection.close();
            throw e;
        }
        return connection;
    }

    /** Removes the directory and everything in it. */
    @Override
    public void close() {
        try {
            DirectoryTree.remove(path);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot remove the reconcile's directory " + path, e);
        }
    }

    @Override
    public String toString() {
        return path.toString();
    }
}
