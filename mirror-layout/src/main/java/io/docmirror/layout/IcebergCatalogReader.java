package io.docmirror.layout;

import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.io.FileIO;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;

/**
 * Reads the pointers of any Iceberg catalog (a REST service): a container's tables are listed and loaded one by one,
 * so two of them may be read on either side of a commit, even of one the service applies atomically, and Iceberg's
 * reference server applies a multi-table commit table by table anyway.
 *
 * <p>How a torn read is told: the mirror puts the root table last in each commit request and changes the root in
 * every commit, so once the root is at batch {@code r}, every table is at its state of batch {@code r} or later. The
 * root is loaded first, then the others; one whose {@code docmirror.batch} is newer than the root's shows that a
 * later commit was under way, and the container is read again, up to {@value #MAX_READS} times (a mirror that
 * commits faster than the container can be read fails the read rather than holding it forever). Tables no later
 * commit has reached yet are at their state of batch {@code r}, so an accepted read is the container as of one batch.
 * Each container is read on its own: two containers may be read at different batches' moments.
 */
final class IcebergCatalogReader implements CatalogReader {
    private static final Logger log = LoggerFactory.getLogger(IcebergCatalogReader.class);
    static final int MAX_READS = 10;

    private final CatalogSettings settings;
    private final CatalogConnection connection;
    private final FileIO io;

    IcebergCatalogReader(CatalogSettings settings, CatalogConnection connection) {
        this.settings = settings;
        this.connection = connection;
        if (!(connection.catalog() instanceof SupportsNamespaces)) {
            connection.close();
            throw new IllegalArgumentException("Cannot read the mirror from the catalog " + settings.uri()
                    + ": it lists no namespaces");
        }
        // The FileIO the mirror writes the tables with, for the metadata files the pointers name.
        this.io = settings.newFileIo();
    }

    @Override
    public CatalogSettings settings() {
        return settings;
    }

    @Override
    public CatalogPointers pointers() {
        Map<TableIdentifier, String> locations = new HashMap<>();
        for (Namespace namespace : namespaces().listNamespaces()) {
            locations.putAll(container(namespace));
        }
        return new CatalogPointers(locations, io);
    }

    @Override
    public CatalogPointers pointers(String container) {
        return new CatalogPointers(container(MirrorTables.namespace(container)), io);
    }

    private Map<TableIdentifier, String> container(Namespace namespace) {
        String disagreement = "";
        for (int read = 1; read <= MAX_READS; read++) {
            ContainerRead found = readOnce(namespace);
            if (found.disagreement().isEmpty()) {
                return found.locations();
            }
            disagreement = found.disagreement().get();
            log.debug("Reading {} again ({} of {}): {}", namespace, read, MAX_READS, disagreement);
        }
        throw new IllegalStateException("Cannot read the tables of " + namespace + " at one batch from the catalog "
                + settings.uri() + ": " + MAX_READS + " reads in a row saw a commit under way, the last one "
                + disagreement);
    }

    /** The namespace's tables, the root first, and what shows a commit under way if anything does. */
    private ContainerRead readOnce(Namespace namespace) {
        Catalog catalog = connection.catalog();
        Map<TableIdentifier, String> locations = new HashMap<>();
        String rootName;
        try {
            rootName = namespaces().loadNamespaceMetadata(namespace).get(MirrorProperties.ROOT_TABLE);
        } catch (NoSuchNamespaceException e) {
            return new ContainerRead(locations, Optional.empty());
        }
        long rootBatch = Long.MAX_VALUE;
        if (rootName != null) {
            Optional<Table> root = load(catalog, TableIdentifier.of(namespace, rootName));
            if (root.isPresent()) {
                locations.put(TableIdentifier.of(namespace, rootName), metadataLocation(root.get()));
                rootBatch = batch(root.get());
            }
        }
        for (TableIdentifier identifier : catalog.listTables(namespace)) {
            if (locations.containsKey(identifier)) {
                continue;
            }
            Optional<Table> table = load(catalog, identifier);
            if (table.isEmpty()) {
                continue;
            }
            long batch = batch(table.get());
            if (batch > rootBatch) {
                return new ContainerRead(locations, Optional.of("table " + identifier + " at batch " + batch
                        + ", its root table " + rootName + " at batch " + rootBatch));
            }
            locations.put(identifier, metadataLocation(table.get()));
        }
        return new ContainerRead(locations, Optional.empty());
    }

    /** The table, or empty when it was dropped since the namespace was listed (a rebuild drops tables). */
    private static Optional<Table> load(Catalog catalog, TableIdentifier identifier) {
        try {
            return Optional.of(catalog.loadTable(identifier));
        } catch (NoSuchTableException e) {
            return Optional.empty();
        }
    }

    private static String metadataLocation(Table table) {
        return ((HasTableOperations) table).operations().current().metadataFileLocation();
    }

    /** The mirror's batch the table is at; 0 for a table no batch has filled yet. */
    private static long batch(Table table) {
        Snapshot snapshot = table.currentSnapshot();
        return snapshot == null ? 0 : Long.parseLong(snapshot.summary().getOrDefault(MirrorSummary.BATCH, "0"));
    }

    private SupportsNamespaces namespaces() {
        return (SupportsNamespaces) connection.catalog();
    }

    @Override
    public ExecutorService workers() {
        return connection.workers();
    }

    @Override
    public void close() {
        try {
            io.close();
        } finally {
            connection.close();
        }
    }

    private record ContainerRead(Map<TableIdentifier, String> locations, Optional<String> disagreement) {
    }
}
