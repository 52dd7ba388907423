package io.docmirror.layout;

import org.apache.iceberg.BaseTable;
import org.apache.iceberg.StaticTableOperations;
import org.apache.iceberg.Table;
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

/**
 * Where each table of the embedded catalog is now: its metadata file, for all tables read in one query, so that a
 * reader sees the tables of one mirror commit together (the mirror moves all of a commit's pointers in one SQLite
 * transaction). JdbcCatalog itself loads tables one at a time.
 */
public final class CatalogPointers {
    private static final String SELECT = "SELECT table_namespace, table_name, metadata_location FROM iceberg_tables"
            + " WHERE catalog_name = ? AND (iceberg_type = 'TABLE' OR iceberg_type IS NULL)";

    private final Map<TableIdentifier, String> locations;

    private CatalogPointers(Map<TableIdentifier, String> locations) {
        this.locations = locations;
    }

    /** The pointers of the embedded catalog of {@code mirrorDirectory}; none when it has no catalog. */
    public static CatalogPointers read(Path mirrorDirectory) {
        Map<TableIdentifier, String> locations = new TreeMap<>((a, b) -> a.toString().compareTo(b.toString()));
        if (!Files.exists(mirrorDirectory.resolve(CatalogSettings.SQLITE_FILE))) {
            return new CatalogPointers(locations);
        }
        CatalogSettings settings = CatalogSettings.embedded(mirrorDirectory);
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
            if (e.getMessage() != null && e.getMessage().contains("no such table")) {
                return new CatalogPointers(locations);
            }
            throw new IllegalStateException("Cannot read the catalog " + settings.uri(), e);
        }
        return new CatalogPointers(locations);
    }

    /** Each table's metadata location. */
    public Map<TableIdentifier, String> locations() {
        return locations;
    }

    /**
     * The tables of one namespace, by name, as their pointers were read.
     *
     * @param io how the tables' files are read: a {@link LocalFileIO} only for tables in a local warehouse
     * @throws IllegalStateException when {@code io} is local and a table's files are in an object store
     */
    public Map<String, Table> tables(Namespace namespace, FileIO io) {
        Map<String, Table> tables = new TreeMap<>();
        locations.forEach((identifier, location) -> {
            if (identifier.namespace().equals(namespace)) {
                if (io instanceof LocalFileIO && !LocalFileIO.isLocal(location)) {
                    // DuckDB reads the data files by local path (its httpfs extension is not available here): say
                    // so, rather than fail on the first file that is not on this disk.
                    throw new IllegalStateException("Cannot read the mirror's table " + identifier + ": its "
                            + "warehouse is in an object store (its metadata is at " + location + "), and the SQL "
                            + "endpoint, status, reconcile, rebuild and repair read local warehouses only. The "
                            + "tables are there for Spark, Trino or pyiceberg to read through the catalog.");
                }
                tables.put(identifier.name(), new BaseTable(new StaticTableOperations(location, io),
                        CatalogSettings.DEFAULT_NAME + "." + identifier));
            }
        });
        return tables;
    }
}
