package io.docmirror.sql;

import org.duckdb.DuckDBConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import static io.docmirror.layout.TableView.literal;

/**
 * One generation of the SQL catalog, open: a DuckDB instance over the generation's catalog file, read-only and
 * sandboxed, from which users' connections are made. Every query runs against one generation, so it sees exactly
 * the batches of that generation.
 *
 * <p>The sandbox: the database is opened read-only (no CREATE, INSERT, DROP outside a connection's own TEMP
 * objects), file access is limited to the mirror directory, extensions can be neither installed nor loaded, and
 * the configuration (memory limit, threads, the sandbox itself) is locked. {@link StatementGuard} refuses what
 * DuckDB would still let through (COPY into the mirror directory, several statements in one).
 *
 * <p>A generation lives while its users do: it is retired when a newer one opens, and closed once it is retired and
 * its last connection is closed.
 */
final class SqlGeneration {
    private static final Logger log = LoggerFactory.getLogger(SqlGeneration.class);

    private final long number;
    private final MirrorSnapshot snapshot;
    private final Map<String, Long> versions;
    private final Path directory;
    private final DuckDBConnection root;
    private final StatementGuard guard;
    private int connections;
    private boolean retired;
    private boolean closed;

    private SqlGeneration(long number, MirrorSnapshot snapshot, Path directory, DuckDBConnection root,
            StatementGuard guard) {
        this.number = number;
        this.snapshot = snapshot;
        this.versions = snapshot.versions();
        this.directory = directory;
        this.root = root;
        this.guard = guard;
    }

    /**
     * Writes the catalog of {@code snapshot} into {@code directory} and opens it. The generation owns the snapshot
     * (its leases keep the files it reads) and closes it when the generation closes, or at once when it cannot open.
     */
    static SqlGeneration open(long number, MirrorSnapshot snapshot, Path directory, SqlConfig config)
            throws SQLException {
        try {
            return openHolding(number, snapshot, directory, config);
        } catch (SQLException | RuntimeException e) {
            snapshot.close();
            throw e;
        }
    }

    private static SqlGeneration openHolding(long number, MirrorSnapshot snapshot, Path directory, SqlConfig config)
            throws SQLException {
        Path file = directory.resolve("docmirror.duckdb");
        try {
            Files.createDirectories(directory);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot create the SQL catalog directory " + directory, e);
        }
        CatalogWriter.write(snapshot, file);
        Properties properties = new Properties();
        properties.setProperty("duckdb.read_only", "true");
        DuckDBConnection root = (DuckDBConnection) DriverManager.getConnection("jdbc:duckdb:" + file, properties);
        try {
            sandbox(root, snapshot.readableDirectories(), directory, config);
            StatementGuard guard = new StatementGuard(root.duplicate());
            return new SqlGeneration(number, snapshot, directory, root, guard);
        } catch (SQLException | RuntimeException e) {
            root.close();
            throw e;
        }
    }

    private static void sandbox(Connection root, List<Path> readableDirectories, Path directory, SqlConfig config)
            throws SQLException {
        List<String> allowed = readableDirectories.stream()
                .map(readable -> literal(readable.toAbsolutePath() + "/")).toList();
        // Order matters: the allowed directories before external access is switched off, the lock last.
        List<String> settings = new ArrayList<>(List.of(
                "SET allowed_directories = [" + String.join(", ", allowed) + "]",
                "SET temp_directory = " + literal(directory.resolve("spill").toAbsolutePath().toString()),
                "SET max_temp_directory_size = " + literal(config.spillLimit()),
                "SET enable_external_access = false",
                "SET autoinstall_known_extensions = false",
                "SET autoload_known_extensions = false",
                "SET allow_community_extensions = false",
                "SET memory_limit = " + literal(config.memoryLimit())));
        if (config.threads() > 0) {
            settings.add("SET threads = " + config.threads());
        }
        settings.add("SET lock_configuration = true");
        try (Statement statement = root.createStatement()) {
            for (String setting : settings) {
                statement.execute(setting);
            }
        }
    }

    long number() {
        return number;
    }

    /** The batch of each container this generation shows. */
    Map<String, Long> versions() {
        return versions;
    }

    /** Where each container this generation shows stood ({@link MirrorSnapshot#commits()}). */
    Map<String, String> commits() {
        return snapshot.commits();
    }

    StatementGuard guard() {
        return guard;
    }

    /** A new connection to this generation; {@link #release} it when closed. */
    synchronized DuckDBConnection connect() throws SQLException {
        if (retired) {
            throw new IllegalStateException("SQL catalog generation " + number + " is retired");
        }
        DuckDBConnection connection = (DuckDBConnection) root.duplicate();
        connections++;
        return connection;
    }

    synchronized void release() {
        connections--;
        closeIfUnused();
    }

    /** No new users after this; the generation closes when its current users are done. */
    synchronized void retire() {
        retired = true;
        closeIfUnused();
    }

    private void closeIfUnused() {
        if (closed || !retired || connections > 0) {
            return;
        }
        closed = true;
        try {
            guard.close();
            root.close();
        } catch (SQLException e) {
            log.warn("Closing SQL catalog generation {} failed; its files are removed anyway", number, e);
        }
        snapshot.close();
        deleteDirectory(directory);
    }

    private static void deleteDirectory(Path directory) {
        try {
            WorkDirectory.removeTree(directory);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot remove the SQL catalog directory " + directory, e);
        }
    }
}
