package io.docmirror.sql;

import io.docmirror.layout.CatalogOptions;
import io.docmirror.layout.CatalogReader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

import static java.util.Objects.requireNonNull;

/**
 * The mirror served as SQL: each connection reads the current state and history of every mirrored table through
 * DuckDB, read-only and sandboxed, with the column limit, memory limit and query timeout of {@link SqlConfig}.
 *
 * <p>Every query runs against one catalog generation (the newest commit of each container when the
 * generation opened), so it never sees half a batch. A query first looks for newer versions when the last look is
 * older than {@code sql.refresh-interval-ms}; a newer generation then opens and later queries use it.
 *
 * <pre>{@code
 * try (SqlEndpoint endpoint = SqlEndpoint.open(mirrorDirectory, SqlConfig.defaults());
 *         Connection connection = endpoint.connect()) {
 *     ... connection.createStatement().executeQuery("SELECT count(*) FROM orders") ...
 * }
 * }</pre>
 */
public final class SqlEndpoint implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(SqlEndpoint.class);

    private final Path mirrorDirectory;
    private final CatalogReader catalog;
    private final SqlConfig config;
    private final WorkDirectory workDirectory;
    private final ScheduledExecutorService timeouts;
    private SqlGeneration current;
    private long lastLookNanos;
    private boolean closed;

    private SqlEndpoint(Path mirrorDirectory, CatalogReader catalog, SqlConfig config, WorkDirectory workDirectory) {
        this.mirrorDirectory = mirrorDirectory;
        this.catalog = catalog;
        this.config = config;
        this.workDirectory = workDirectory;
        this.timeouts = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "docmirror-sql-timeouts");
            thread.setDaemon(true);
            return thread;
        });
    }

    /**
     * Opens the endpoint over a mirror directory ({@code DATA/mirror}) whose tables are in its embedded catalog;
     * containers mirrored later appear as they commit their first version. Catalog generations live in a temporary
     * directory removed on close ({@link WorkDirectory}: or at exit, or by the next endpoint when the process was
     * killed).
     */
    public static SqlEndpoint open(Path mirrorDirectory, SqlConfig config) throws SQLException {
        return open(mirrorDirectory, CatalogOptions.embedded(), config);
    }

    /**
     * Opens the endpoint over a mirror directory whose tables are in the catalog of {@code catalog} (the mirror's
     * {@code mirror.catalog.*} options). From a REST catalog, each container is shown at one batch of its own (see
     * {@link CatalogReader}).
     */
    public static SqlEndpoint open(Path mirrorDirectory, CatalogOptions catalog, SqlConfig config)
            throws SQLException {
        requireNonNull(mirrorDirectory, "mirrorDirectory is null");
        requireNonNull(catalog, "catalog is null");
        requireNonNull(config, "config is null");
        Path directory = mirrorDirectory.toAbsolutePath();
        CatalogReader reader = CatalogReader.open(catalog.settings(directory));
        SqlEndpoint endpoint;
        try {
            endpoint = new SqlEndpoint(directory, reader, config, WorkDirectory.create());
        } catch (RuntimeException e) {
            reader.close();
            throw e;
        }
        try {
            endpoint.refresh();
        } catch (SQLException | RuntimeException e) {
            endpoint.close();
            throw e;
        }
        return endpoint;
    }

    /** A new connection; close it when done. */
    public Connection connect() throws SQLException {
        return EndpointConnection.open(this);
    }

    public SqlConfig config() {
        return config;
    }

    /** The batch of each container that new queries see. */
    public synchronized Map<String, Long> versions() {
        return current.versions();
    }

    /**
     * Looks for newer commits now and, when there are, opens a new generation for later queries.
     *
     * @return true when a new generation opened
     */
    public synchronized boolean refresh() throws SQLException {
        checkOpen();
        lastLookNanos = System.nanoTime();
        if (current != null && MirrorSnapshot.currentCommits(catalog).equals(current.commits())) {
            return false;
        }
        long number = current == null ? 1 : current.number() + 1;
        SqlGeneration next = SqlGeneration.open(number, MirrorSnapshot.read(mirrorDirectory, catalog),
                workDirectory.path().resolve("generation-" + number), config);
        if (current != null) {
            current.retire();
        }
        current = next;
        return true;
    }

    /** The generation a new query uses: the current one, after a look for newer versions when one is due. */
    synchronized SqlGeneration generation() throws SQLException {
        checkOpen();
        if (System.nanoTime() - lastLookNanos >= config.refreshInterval().toNanos()) {
            refresh();
        }
        return current;
    }

    ScheduledExecutorService timeouts() {
        return timeouts;
    }

    private void checkOpen() throws SQLException {
        if (closed) {
            throw new SQLException("The SQL endpoint over " + mirrorDirectory + " is closed");
        }
    }

    /**
     * Closes the endpoint: queries on connections still open fail from now on, and each generation removes its
     * catalog files once its last connection is closed.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (current != null) {
            current.retire();
        }
        timeouts.shutdownNow();
        catalog.close();
        if (!workDirectory.removeIfEmpty()) {
            log.info("Leaving {}: connections still open use a catalog generation in it", workDirectory.path());
        }
    }
}
