package io.docmirror.layout;

import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.FileIO;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;

/**
 * Reads the embedded catalog's pointers, all tables in one query, so that a reader sees the tables of one mirror
 * commit together (the mirror moves all of a commit's pointers in one SQLite transaction). JdbcCatalog itself loads
 * tables one at a time. Each read opens its own SQLite connection: nothing stays open between reads.
 */
final class EmbeddedCatalogReader implements CatalogReader {
    private static final String SELECT = "SELECT table_namespace, table_name, metadata_location FROM iceberg_tables"
            + " WHERE catalog_name = ? AND (iceberg_type = 'TABLE' OR iceberg_type IS NULL)";

    private final CatalogSettings settings;
    private final Path sqliteFile;
    /**
     * Scans plan on the reading thread: reading a container of a million orders took 130 ms with a pool against 31
     * to 45 ms this way (Iceberg polls a pool's tasks every 10 ms; {@link IcebergWorkers}).
     */
    private final ExecutorService workers = IcebergWorkers.callerRuns();
    /** The FileIO the mirror writes the tables with: local, or an object store's. */
    private final FileIO io;

    EmbeddedCatalogReader(CatalogSettings settings) {
        if (settings.kind() != CatalogSettings.Kind.SQLITE) {
            throw new IllegalArgumentException("Not the embedded catalog: " + settings.kind());
        }
        this.settings = settings;
        this.sqliteFile = settings.sqliteFile();
        this.io = settings.newFileIo();
    }

    @Override
    public CatalogSettings settings() {
        return settings;
    }

    @Override
    public CatalogPointers pointers() {
        Map<TableIdentifier, String> locations = new TreeMap<>(CatalogPointers.BY_NAME);
        if (!Files.exists(sqliteFile)) {
            return new CatalogPointers(locations, io);
        }
        try (Connection sqlite = DriverManager.getConnection(settings.uri());
                PreparedStatement select = sqlite.prepareStatement(SELECT)) {
            select.setString(1, settings.name());
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    // JdbcCatalog joins a namespace's levels with dots; the mirror's namespaces have one level.
                    locations.put(TableIdentifier.of(Namespace.of(rows.getString(1)), rows.getString(2)),
                            rows.getString(3));
                }
            }
        } catch (SQLException e) {
            if (!beingCreated(e)) {
                throw new IllegalStateException("Cannot read the catalog " + settings.uri(), e);
            }
        }
        return new CatalogPointers(locations, io);
    }

    /**
     * Whether the query failed because the mirror is creating the catalog's tables right now: a file with no tables
     * yet, or JdbcCatalog's table before it adds the {@code iceberg_type} column (it creates the table and then
     * migrates it to schema V1, in two statements). Such a catalog holds no pointers yet.
     */
    private static boolean beingCreated(SQLException e) {
        String message = e.getMessage() == null ? "" : e.getMessage();
        return message.contains("no such table") || message.contains("no such column: iceberg_type");
    }

    /** All pointers: one query reads them all as cheaply as one container's. */
    @Override
    public CatalogPointers pointers(String container) {
        return pointers();
    }

    @Override
    public ExecutorService workers() {
        return workers;
    }

    @Override
    public void close() {
        // No connection is held between reads.
        workers.shutdown();
        io.close();
    }
}
