package io.docmirror.sql;

import io.docmirror.layout.CatalogOptions;
import io.docmirror.layout.CatalogReader;
import io.docmirror.layout.MirrorLayout;

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
 * <p>Queries read a copy of the mirror's tables in DuckDB's own storage ({@link ServingCopy}), kept in the mirror
 * directory. Each new commit of the mirror is applied to it in one transaction, so a query never sees half a
 * batch. A query first looks for newer commits when the last look is older than {@code sql.refresh-interval-ms}, and
 * applies them before it runs.
 *
 * <pre>{@code
 * try (SqlEndpoint endpoint = SqlEndpoint.open(mirrorDirectory, SqlConfig.defaults());
 *         Connection connection = endpoint.connect()) {
 *     ... connection.createStatement().executeQuery("SELECT count(*) FROM orders") ...
 * }
 * }</pre>
 */
public final class SqlEndpoint implements AutoCloseable {
    private final Path mirrorDirectory;
    private final CatalogReader catalog;
    private final SqlConfig config;
    private final ServingCopy copy;
    private final ScheduledExecutorService timeouts;
    private long lastLookNanos;
    private boolean closed;

    private SqlEndpoint(Path mirrorDirectory, CatalogReader catalog, SqlConfig config, ServingCopy copy) {
        this.mirrorDirectory = mirrorDirectory;
        this.catalog = catalog;
        this.config = config;
        this.copy = copy;
        this.timeouts = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "docmirror-sql-timeouts");
            thread.setDaemon(true);
            return thread;
        });
    }

    /**
     * Opens the endpoint over a mirror directory ({@code DATA/mirror}) whose tables are in its embedded catalog;
     * containers mirrored later appear as they commit their first version. The copy of the tables is brought up to
     * date before this returns. Spill files live in a temporary directory removed on close ({@link WorkDirectory}:
     * or at exit, or by the next endpoint when the process was killed).
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
            WorkDirectory work = WorkDirectory.create();
            ServingCopy copy;
            try {
                copy = ServingCopy.open(MirrorLayout.servingCopyDirectory(directory), work.path(),
                        MirrorSnapshot.readableDirectories(directory, reader), config, work::remove);
            } catch (SQLException | RuntimeException e) {
                work.remove();
                throw e;
            }
            endpoint = new SqlEndpoint(directory, reader, config, copy);
        } catch (SQLException | RuntimeException e) {
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
    public Map<String, Long> versions() {
        return copy.versions();
    }

    /**
     * Looks for newer commits now and, when there are, applies them to the copy for later queries.
     *
     * @return true when the copy moved
     */
    public synchronized boolean refresh() throws SQLException {
        checkOpen();
        lastLookNanos = System.nanoTime();
        if (MirrorSnapshot.currentCommits(catalog).equals(copy.commits())) {
            return false;
        }
        try (MirrorSnapshot snapshot = MirrorSnapshot.read(mirrorDirectory, catalog)) {
            copy.apply(snapshot);
        }
        return true;
    }

    /** The copy a new query reads, after a look for newer commits when one is due. */
    synchronized ServingCopy copy() throws SQLException {
        checkOpen();
        if (System.nanoTime() - lastLookNanos >= config.refreshInterval().toNanos()) {
            refresh();
        }
        return copy;
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
     * Closes the endpoint: queries on connections still open fail from now on, and the copy closes once its last
     * connection is closed.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        copy.close();
        timeouts.shutdownNow();
        catalog.close();
    }
}
