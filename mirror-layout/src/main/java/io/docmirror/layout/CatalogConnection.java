package io.docmirror.layout;

import org.apache.iceberg.catalog.Catalog;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.ExecutorService;

/**
 * An open Iceberg catalog, to close when done: both kinds hold resources (JDBC connections, an HTTP client), which
 * Iceberg's {@link Catalog} interface does not say.
 *
 * @param workers the threads scans and commits of the catalog's tables plan with ({@link IcebergWorkers})
 */
public record CatalogConnection(Catalog catalog, ExecutorService workers) implements AutoCloseable {
    @Override
    public void close() {
        try {
            if (catalog instanceof Closeable closeable) {
                closeable.close();
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot close the catalog " + catalog.name(), e);
        } finally {
            workers.shutdown();
        }
    }
}
