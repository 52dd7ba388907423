package io.docmirror.sql;

import io.docmirror.layout.CatalogOptions;
import io.docmirror.layout.CatalogReader;
import io.docmirror.layout.MirrorLayout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

import static java.util.Objects.requireNonNull;

/**
 * The mirror served as SQL: each connection reads the current state and history of every mirrored table through
 * DuckDB, read-only and sandboxed, with the column limit, memory limit and query timeout of {@link SqlConfig}.
 *
 * <p>Queries read a copy of the mirror's tables in DuckDB's own storage ({@link ServingCopy}), kept in the mirror
 * directory. Each new commit of the mirror is applied to it in one transaction, so a query never sees half a
 * batch. A thread of the endpoint's looks for newer commits every {@code sql.refresh-interval-ms} and applies them;
 * a query never waits for it, and reads the copy as the last apply left it. With an interval of 0, every query
 * instead looks for newer commits first and waits for them to be applied.
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
    private final ServingCopy copy;
    private final ScheduledExecutorService timeouts;
    /** Held while commits are applied to the copy: one apply at a time, and none while the endpoint closes. */
    private final ReentrantLock applying = new ReentrantLock();
    private volatile boolean closed;

    private SqlEndpoint(Path mirrorDirectory, CatalogReader catalog, SqlConfig config, ServingCopy copy) {
        this.mirrorDirectory = mirrorDirectory;
        this.catalog = catalog;
        this.config = config;
        this.copy = copy;
        this.timeouts = Executors.newScheduledThreadPool(2, runnable -> {
            Thread thread = new Thread(runnable, "docmirror-sql-timeouts-and-refresh");
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
        endpoint.follow();
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
     * Looks for newer commits now and, when there are, applies them to the copy for later queries; waits for an
     * apply under way first.
     *
     * @return true when the copy moved
     */
    public boolean refresh() throws SQLException {
        applying.lock();
        try {
            checkOpen();
            if (MirrorSnapshot.currentCommits(catalog).equals(copy.commits())) {
                return false;
            }
            try (MirrorSnapshot snapshot = MirrorSnapshot.read(mirrorDirectory, catalog)) {
                copy.apply(snapshot);
            }
            return true;
        } finally {
            applying.unlock();
        }
    }

    /** Applies newer commits every refresh interval, on the endpoint's thread; a failure is logged and tried again. */
    private void follow() {
        long interval = config.refreshInterval().toMillis();
        if (interval == 0) {
            return;
        }
        timeouts.scheduleWithFixedDelay(() -> {
            try {
                if (!closed) {
                    refresh();
                }
            } catch (SQLException | RuntimeException e) {
                if (closed) {
                    return;
                }
                log.warn("Cannot bring the SQL endpoint's copy up to date; it serves the commits it has, and tries "
                        + "again in {} ms", interval, e);
            }
        }, interval, interval, TimeUnit.MILLISECONDS);
    }

    /** The copy a new query reads: with a refresh interval of 0, after newer commits were applied. */
    ServingCopy copy() throws SQLException {
        checkOpen();
        if (config.refreshInterval().isZero()) {
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
    public void close() {
        applying.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            timeouts.shutdownNow();
            copy.close();
            catalog.close();
        } finally {
            applying.unlock();
        }
    }
}
