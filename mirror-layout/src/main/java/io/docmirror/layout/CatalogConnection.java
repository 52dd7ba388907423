package io.docmirror.layout;

import org.apache.iceberg.catalog.Catalog;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * An open Iceberg catalog, to close when done: both kinds hold resources (JDBC connections, an HTTP client), which
 * Iceberg's {@link Catalog} interface does not say.
 */
public record CatalogConnection(Catalog catalog) implements AutoCloseable {
    @Override
    public void close() {
        if (catalog instanceof Closeable closeable) {
            try {
                closeable.close();
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot close the catalog " + catalog.name(), e);
            }
        }
    }
}
