package io.docmirror.layout;

import org.apache.iceberg.BaseTable;
import org.apache.iceberg.StaticTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.FileIO;

import java.nio.file.Path;
import java.util.Collections;
import java.util.Comparator;
import java.util.Map;
import java.util.TreeMap;

/**
 * Where tables of the catalog were at one read ({@link CatalogReader}): each one's metadata file, and the FileIO
 * that opens it. Tables made from it stay at that metadata however the catalog moves on.
 */
public final class CatalogPointers {
    static final Comparator<TableIdentifier> BY_NAME = Comparator.comparing(TableIdentifier::toString);

    private final Map<TableIdentifier, String> locations;
    private final FileIO io;

    CatalogPointers(Map<TableIdentifier, String> locations, FileIO io) {
        TreeMap<TableIdentifier, String> sorted = new TreeMap<>(BY_NAME);
        sorted.putAll(locations);
        this.locations = Collections.unmodifiableMap(sorted);
        this.io = io;
    }

    /** The pointers of the embedded catalog of {@code mirrorDirectory}; none when it has no catalog. */
    public static CatalogPointers read(Path mirrorDirectory) {
        try (CatalogReader reader = new EmbeddedCatalogReader(CatalogSettings.embedded(mirrorDirectory))) {
            return reader.pointers();
        }
    }

    /** Each table's metadata location. */
    public Map<TableIdentifier, String> locations() {
        return locations;
    }

    /**
     * The tables of one namespace, by name, as their pointers were read.
     *
     * @throws IllegalStateException when the pointers' FileIO is local and a table's files are in an object store
     */
    public Map<String, Table> tables(Namespace namespace) {
        Map<String, Table> tables = new TreeMap<>();
        locations.forEach((identifier, location) -> {
            if (identifier.namespace().equals(namespace)) {
                if (io instanceof LocalFileIO && !LocalFileIO.isLocal(location)) {
                    // Read with the catalog's options, the files would be read through the object store's FileIO.
                    throw new IllegalStateException("Cannot read the mirror's table " + identifier + ": its "
                            + "warehouse is in an object store (its metadata is at " + location + "), and this "
                            + "reader was not given the object store's options (mirror.catalog.warehouse and "
                            + "mirror.catalog.s3.* in the config file)");
                }
                tables.put(identifier.name(), new BaseTable(new StaticTableOperations(location, io),
                        CatalogSettings.DEFAULT_NAME + "." + identifier));
            }
        });
        return tables;
    }
}
