package io.docmirror.layout;

import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.io.FileIO;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

import static java.util.Objects.requireNonNull;

/**
 * Which Iceberg catalog holds the mirror's tables, and where their files go.
 *
 * <p>The default, {@link Kind#SQLITE}, needs nothing running: Iceberg's {@code JdbcCatalog} keeps one row per table in
 * a SQLite file of the mirror directory ({@code catalog.db}), and the files go under {@code warehouse/} beside it.
 * pyiceberg's SQL catalog, Trino's and Spark's JDBC catalogs open the same file. {@link Kind#REST} points at an
 * Iceberg REST catalog service instead.
 *
 * @param kind the kind of catalog
 * @param name the catalog's name: JdbcCatalog records it in every row, and readers must open it under the same name
 * @param uri the JDBC URI of the SQLite file, or the REST service's base URI
 * @param warehouse where new tables' files go: a {@code file:} URI for the embedded default
 * @param properties further catalog properties, passed to Iceberg as they are (credentials, FileIO settings)
 */
public record CatalogSettings(Kind kind, String name, String uri, String warehouse, Map<String, String> properties) {
    /** The catalog name the embedded default uses. */
    public static final String DEFAULT_NAME = "docmirror";
    /** The SQLite file of the embedded catalog, in the mirror directory. */
    public static final String SQLITE_FILE = "catalog.db";
    /** The folder of the embedded catalog's table files, in the mirror directory. */
    public static final String WAREHOUSE_DIRECTORY = "warehouse";

    public enum Kind {
        SQLITE,
        REST
    }

    public CatalogSettings {
        requireNonNull(kind, "kind is null");
        requireNonNull(name, "name is null");
        requireNonNull(uri, "uri is null");
        requireNonNull(warehouse, "warehouse is null");
        properties = Map.copyOf(properties);
        if (name.isBlank()) {
            throw new IllegalArgumentException("The catalog name must not be blank");
        }
    }

    private static final String SQLITE_URI_PREFIX = "jdbc:sqlite:";

    /** Without the properties' values: they may hold credentials. */
    @Override
    public String toString() {
        return "CatalogSettings[kind=" + kind + ", name=" + name + ", uri=" + uri + ", warehouse=" + warehouse
                + ", properties=" + new TreeSet<>(properties.keySet()) + "]";
    }

    /** The embedded default for a mirror directory: {@code catalog.db} and {@code warehouse/} inside it. */
    public static CatalogSettings embedded(Path mirrorDirectory) {
        Path directory = mirrorDirectory.toAbsolutePath().normalize();
        // WAL lets the SQL endpoint read while the mirror commits; FULL makes each commit durable when it returns.
        String uri = SQLITE_URI_PREFIX + directory.resolve(SQLITE_FILE)
                + "?journal_mode=WAL&synchronous=FULL&busy_timeout=10000";
        return new CatalogSettings(Kind.SQLITE, DEFAULT_NAME, uri,
                LocalFileIO.locationOf(directory.resolve(WAREHOUSE_DIRECTORY)), Map.of());
    }

    /**
     * The local directory of the warehouse, when it is a {@code file:} location: where the tables' files are, for a
     * reader that may open files in named directories only (the SQL endpoint's sandbox).
     */
    public Optional<Path> localWarehouse() {
        return warehouse.startsWith("file:") ? Optional.of(LocalFileIO.pathOf(warehouse)) : Optional.empty();
    }

    /** A new FileIO of the kind the mirror writes the tables with (local by default); the caller closes it. */
    public FileIO newFileIo() {
        Map<String, String> fileIoProperties = new HashMap<>(properties);
        return CatalogUtil.loadFileIO(fileIoProperties.getOrDefault(CatalogProperties.FILE_IO_IMPL,
                LocalFileIO.class.getName()), fileIoProperties, null);
    }

    /** The SQLite file of an embedded catalog: its URI without the {@code jdbc:sqlite:} prefix and parameters. */
    Path sqliteFile() {
        if (kind != Kind.SQLITE || !uri.startsWith(SQLITE_URI_PREFIX)) {
            throw new IllegalStateException("Not a SQLite catalog: " + uri);
        }
        String file = uri.substring(SQLITE_URI_PREFIX.length());
        int parameters = file.indexOf('?');
        return Path.of(parameters < 0 ? file : file.substring(0, parameters));
    }
}
