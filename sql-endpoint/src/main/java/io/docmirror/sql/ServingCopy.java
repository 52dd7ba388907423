package io.docmirror.sql;

import org.duckdb.DuckDBConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import static io.docmirror.layout.TableView.literal;

/**
 * The mirror's tables copied into DuckDB's own storage, which the endpoint serves every query from. DuckDB's native
 * tables skip deleted rows through their own row versions at no cost a row, where reading the Iceberg tables' Parquet
 * files means testing every row of every file with a deletion vector, and random updates give every file one
 * (issue 43). The Iceberg tables stay the truth every other engine reads; this copy follows them and can always be
 * made again from them.
 *
 * <p>{@link #apply} brings the copy to a snapshot of the mirror in one DuckDB transaction: each table's new data
 * files are inserted, the rows its new deletion vectors name are deleted, the files a compaction replaced are
 * swapped for their replacements ({@link CopiedTable}), and the views and catalog are written again
 * ({@link CatalogWriter}). A query, in its own transaction, sees the copy before or after, never half of it.
 *
 * <p>The copy lives in the mirror directory ({@code _sql/copy.duckdb}), with the commit of each container it holds,
 * so a restarted endpoint catches up from there. One endpoint at a time keeps it (a file lock); another one, and one
 * that cannot write there, keeps a copy of its own in its temporary directory, made from the tables as it opens.
 * A copy that cannot be opened (damaged) is made again from the tables.
 *
 * <p>The sandbox: file access is limited to the mirror directory and the endpoint's own, extensions can be neither
 * installed nor loaded, and the configuration (memory limit, threads, the sandbox itself) is locked.
 * {@link StatementGuard} lets only queries through, so users' connections, which share the database, change nothing.
 */
final class ServingCopy {
    private static final Logger log = LoggerFactory.getLogger(ServingCopy.class);
    private static final String FILE = "copy.duckdb";

    private final Path file;
    /** Where data files in an object store are copied to be read. */
    private final Path staging;
    private final DuckDBConnection root;
    private final DuckDBConnection writer;
    private final StatementGuard guard;
    private final FileChannel lockChannel;
    /** Runs once the copy is closed (the endpoint removes its temporary directory). */
    private final Runnable onClosed;
    private final AppliedVectors vectors = new AppliedVectors();
    /** Why the kept copy was made again as it opened; null when it was not. */
    private final String remadeBecause;
    /** What each container's copy was brought to ({@link MirrorSnapshot#commits()}), failed ones included. */
    private Map<String, String> commits;
    private Map<String, Long> versions;
    private int connections;
    private boolean closing;
    private boolean closed;

    private ServingCopy(Path file, Path staging, DuckDBConnection root, StatementGuard guard, FileChannel lockChannel,
            Map<String, String> commits, Map<String, Long> versions, Runnable onClosed, String remadeBecause)
            throws SQLException {
        this.file = file;
        this.staging = staging;
        this.root = root;
        this.writer = (DuckDBConnection) root.duplicate();
        this.guard = guard;
        this.lockChannel = lockChannel;
        this.commits = commits;
        this.versions = versions;
        this.onClosed = onClosed;
        this.remadeBecause = remadeBecause;
        recordState();
    }

    /**
     * Opens the copy kept in {@code copyDirectory}, or when another endpoint keeps it or it cannot be written, a new
     * one in {@code workDirectory}.
     *
     * @param readableDirectories what queries may read besides the copy: the mirror directory and its warehouse
     * @param onClosed runs once the copy is closed and its last user gone
     */
    static ServingCopy open(Path copyDirectory, Path workDirectory, List<Path> readableDirectories, SqlConfig config,
            Runnable onClosed) throws SQLException {
        FileChannel lockChannel = lock(copyDirectory);
        Path directory = lockChannel == null ? workDirectory : copyDirectory;
        Path file = directory.resolve(FILE);
        try {
            DuckDBConnection root;
            String remadeBecause = null;
            try {
                root = (DuckDBConnection) DriverManager.getConnection("jdbc:duckdb:" + file);
            } catch (SQLException e) {
                if (lockChannel == null) {
                    throw e;
                }
                log.warn("The SQL endpoint's copy {} cannot be opened ({}); making it again from the tables", file,
                        e.getMessage());
                remadeBecause = file + " could not be opened: " + e.getMessage();
                removeDatabase(file);
                root = (DuckDBConnection) DriverManager.getConnection("jdbc:duckdb:" + file);
            }
            try {
                List<Path> readable = new ArrayList<>(readableDirectories);
                readable.add(workDirectory);
                CopiedTable.createRecords(root);
                createContainerRecords(root);
                Map<String, String> commits = new TreeMap<>();
                Map<String, Long> versions = new TreeMap<>();
                readContainerRecords(root, commits, versions);
                sandbox(root, readable, workDirectory, config);
                StatementGuard guard = new StatementGuard(root.duplicate());
                return new ServingCopy(file, workDirectory.resolve("staging"), root, guard, lockChannel, commits, versions, onClosed,
                        remadeBecause);
            } catch (SQLException | RuntimeException e) {
                root.close();
                throw e;
            }
        } catch (SQLException | RuntimeException e) {
            release(lockChannel);
            throw e;
        }
    }

    /** Takes the copy directory's lock; null when another endpoint holds it or the directory cannot be written. */
    private static FileChannel lock(Path copyDirectory) {
        FileChannel channel = null;
        try {
            Files.createDirectories(copyDirectory);
            channel = FileChannel.open(copyDirectory.resolve("copy.lock"), StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE);
            FileLock lock = channel.tryLock();
            if (lock != null) {
                return channel;
            }
            log.info("Another SQL endpoint keeps the copy in {}; this one makes a copy of its own", copyDirectory);
        } catch (OverlappingFileLockException e) {
            log.info("Another SQL endpoint of this process keeps the copy in {}; this one makes a copy of its own",
                    copyDirectory);
        } catch (IOException e) {
            log.warn("Cannot keep the SQL endpoint's copy in {} ({}); this endpoint makes a copy of its own",
                    copyDirectory, e.toString());
        }
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot close " + copyDirectory.resolve("copy.lock"), e);
            }
        }
        return null;
    }

    private static void release(FileChannel lockChannel) {
        if (lockChannel != null) {
            try {
                lockChannel.close();
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot let go of the SQL endpoint's copy", e);
            }
        }
    }

    private static void removeDatabase(Path file) {
        try {
            Files.deleteIfExists(file);
            Files.deleteIfExists(file.resolveSibling(file.getFileName() + ".wal"));
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot remove the damaged copy " + file, e);
        }
    }

    private static void createContainerRecords(DuckDBConnection connection) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE IF NOT EXISTS " + CopiedTable.SCHEMA + ".containers (container VARCHAR "
                    + "NOT NULL, commit_key VARCHAR NOT NULL, batch BIGINT NOT NULL)");
        }
    }

    private static void readContainerRecords(DuckDBConnection connection, Map<String, String> commits,
            Map<String, Long> versions) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT container, commit_key, batch FROM "
                        + CopiedTable.SCHEMA + ".containers")) {
            while (rows.next()) {
                commits.put(rows.getString(1), rows.getString(2));
                versions.put(rows.getString(1), rows.getLong(3));
            }
        }
    }

    private static void sandbox(Connection root, List<Path> readableDirectories, Path workDirectory,
            SqlConfig config) throws SQLException {
        List<String> allowed = readableDirectories.stream()
                .map(readable -> literal(readable.toAbsolutePath() + "/")).toList();
        // Order matters: the allowed directories before external access is switched off, the lock last.
        List<String> settings = new ArrayList<>(List.of(
                "SET allowed_directories = [" + String.join(", ", allowed) + "]",
                "SET temp_directory = " + literal(workDirectory.resolve("spill").toAbsolutePath().toString()),
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

    /**
     * Brings the copy to {@code snapshot} in one transaction. A container whose tables cannot be copied (a damaged
     * file) keeps its copy as it was, is left out of the views, and is listed in {@code docmirror_errors}.
     */
    synchronized void apply(MirrorSnapshot snapshot) throws SQLException {
        Map<String, String> failed = new TreeMap<>();
        long started = System.nanoTime();
        while (true) {
            try (Statement statement = writer.createStatement()) {
                statement.execute("BEGIN TRANSACTION");
            }
            try {
                Set<String> copied = CatalogWriter.write(writer, snapshot, failed, staging, vectors);
                long written = System.nanoTime();
                dropLeftOver(failed, copied);
                recordContainers(snapshot, failed);
                long recorded = System.nanoTime();
                try (Statement statement = writer.createStatement()) {
                    statement.execute("COMMIT");
                }
                vectors.committed();
                log.debug("Copied in {} ms, recorded in {} ms, committed in {} ms", (written - started) / 1_000_000,
                        (recorded - written) / 1_000_000, (System.nanoTime() - recorded) / 1_000_000);
                commits = snapshot.commits();
                Map<String, Long> applied = new TreeMap<>(snapshot.versions());
                applied.keySet().removeAll(failed.keySet());
                versions = applied;
                recordState();
                log.info("The SQL endpoint's copy is at {} ({} ms to apply)", applied,
                        (System.nanoTime() - started) / 1_000_000);
                return;
            } catch (CatalogWriter.ContainerFailure e) {
                rollback();
                vectors.rolledBack();
                log.warn("Container {} is left out of the SQL catalog: {}", e.container(), e.getMessage(), e);
                failed.put(e.container(), e.getMessage());
            } catch (SQLException | RuntimeException e) {
                rollback();
                vectors.rolledBack();
                throw e;
            }
        }
    }

    /** Writes where a kept copy stands for other processes to read ({@link CopyState}). */
    private void recordState() {
        if (lockChannel != null) {
            new CopyState(versions, System.currentTimeMillis(), remadeBecause).write(file.getParent());
        }
    }

    /** Drops the copied tables of containers gone from the mirror, and those a container no longer has. */
    private void dropLeftOver(Map<String, String> failed, Set<String> copied) throws SQLException {
        for (Map.Entry<String, String> table : CopiedTable.recordedRelations(writer).entrySet()) {
            String key = table.getKey();
            boolean keep = copied.contains(key) || failed.keySet().stream()
                    .anyMatch(container -> CatalogWriter.isOf(key, container));
            if (!keep) {
                CopiedTable.drop(writer, table.getValue());
            }
        }
    }

    private void recordContainers(MirrorSnapshot snapshot, Map<String, String> failed) throws SQLException {
        try (Statement statement = writer.createStatement()) {
            statement.execute("DELETE FROM " + CopiedTable.SCHEMA + ".containers");
        }
        try (PreparedStatement insert = writer.prepareStatement("INSERT INTO " + CopiedTable.SCHEMA
                + ".containers VALUES (?, ?, ?)")) {
            for (Map.Entry<String, Long> version : snapshot.versions().entrySet()) {
                if (!failed.containsKey(version.getKey())) {
                    insert.setString(1, version.getKey());
                    insert.setString(2, snapshot.commits().get(version.getKey()));
                    insert.setLong(3, version.getValue());
                    insert.execute();
                }
            }
        }
    }

    private void rollback() throws SQLException {
        // DuckDB's driver closes a statement that failed: roll back on a new one.
        try (Statement statement = writer.createStatement()) {
            statement.execute("ROLLBACK");
        }
    }

    /** Where each container's copy stands ({@link MirrorSnapshot#commits()}): equal maps, nothing to apply. */
    synchronized Map<String, String> commits() {
        return commits;
    }

    /** The batch of each container the copy shows. */
    synchronized Map<String, Long> versions() {
        return versions;
    }

    StatementGuard guard() {
        return guard;
    }

    /** A new connection for a user's queries; {@link #release} it when closed. */
    synchronized DuckDBConnection connect() throws SQLException {
        if (closing) {
            throw new IllegalStateException("The SQL endpoint's copy is closed");
        }
        DuckDBConnection connection = (DuckDBConnection) root.duplicate();
        connections++;
        return connection;
    }

    synchronized void release() {
        connections--;
        closeIfUnused();
    }

    /** No new users after this; the copy closes when its current users are done. */
    synchronized void close() {
        closing = true;
        closeIfUnused();
    }

    private void closeIfUnused() {
        if (closed || !closing || connections > 0) {
            return;
        }
        closed = true;
        try {
            guard.close();
            writer.close();
            root.close();
        } catch (SQLException e) {
            log.warn("Closing the SQL endpoint's copy {} failed", file, e);
        } finally {
            release(lockChannel);
            onClosed.run();
        }
    }
}
