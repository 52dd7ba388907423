package io.docmirror.layout;

import java.util.concurrent.ExecutorService;

/**
 * Where the mirror's tables' current metadata is, for those who read the tables (the SQL endpoint, {@code status},
 * {@code reconcile}): each table's metadata location, read so that a container's tables are at one batch.
 *
 * <ul>
 * <li>The embedded SQLite catalog is read in one query ({@link EmbeddedCatalogReader}): the mirror moves all of a
 * batch's pointers in one SQLite transaction, so a read sees whole batches of every container at once.</li>
 * <li>Any other Iceberg catalog, a REST service say, is read table by table ({@link IcebergCatalogReader}), which may
 * see two tables of a container at adjacent batches; their {@code docmirror.batch} summaries tell, and the container
 * is read again until its tables agree. Different containers may be read at different moments.</li>
 * </ul>
 */
public interface CatalogReader extends AutoCloseable {
    /** Opens the reader of the catalog that {@code settings} describe; the caller closes it. */
    static CatalogReader open(CatalogSettings settings) {
        return switch (settings.kind()) {
            case SQLITE -> new EmbeddedCatalogReader(settings);
            case REST -> new IcebergCatalogReader(settings, MirrorCatalog.open(settings));
        };
    }

    /** The catalog read. */
    CatalogSettings settings();

    /** Every table's current metadata location, each container's tables at one batch. */
    CatalogPointers pointers();

    /** The current metadata locations of one container's tables, at one batch (possibly of others' too). */
    CatalogPointers pointers(String container);

    /** What scans of the catalog's tables plan with ({@link IcebergWorkers}); it ends with the reader. */
    ExecutorService workers();

    @Override
    void close();
}
