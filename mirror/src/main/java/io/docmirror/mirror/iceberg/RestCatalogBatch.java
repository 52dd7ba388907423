package io.docmirror.mirror.iceberg;

import io.docmirror.layout.MirrorProperties;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.catalog.TableCommit;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.rest.RESTCatalog;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A {@link CatalogBatch} of an Iceberg REST catalog: each table's changes are staged as metadata updates, and the
 * batch sends them in one {@code commitTransaction} request, with each table's requirement that it is still at the
 * metadata the batch read. Whether the server applies the tables together or one by one is the server's: the REST
 * specification's multi-table commit is atomic, Iceberg's reference server is not.
 *
 * <p>Two things a REST commit request cannot carry happen outside the batch: a table the batch creates is created
 * (empty) at once, and a table it drops is dropped after the commit.
 */
final class RestCatalogBatch implements CatalogBatch {
    private final RESTCatalog catalog;
    private final FileIO io;
    private final StagedTables tables;
    private final List<TableIdentifier> dropped = new ArrayList<>();
    private final CommitObserver observer;

    /** @param observer told of each step of the commit (a crash test's kill points) */
    RestCatalogBatch(RESTCatalog catalog, FileIO io, CommitObserver observer) {
        this.catalog = catalog;
        this.io = io;
        this.observer = observer;
        this.tables = new StagedTables(catalog.name());
    }

    @Override
    public boolean exists(TableIdentifier identifier) {
        return catalog.tableExists(identifier);
    }

    @Override
    public Table table(TableIdentifier identifier) {
        Optional<Table> staged = tables.find(identifier);
        if (staged.isPresent()) {
            return staged.get();
        }
        TableMetadata base = ((HasTableOperations) catalog.loadTable(identifier)).operations().current();
        return tables.add(identifier, StagedTableOperations.updating(identifier, io, base));
    }

    @Override
    public Transaction create(TableIdentifier identifier, Schema schema, String location,
            Map<String, String> properties) {
        Map<String, String> all = StagedTables.formatVersion3(properties);
        catalog.buildTable(identifier, schema).withPartitionSpec(PartitionSpec.unpartitioned())
                .withSortOrder(SortOrder.unsorted()).withLocation(location).withProperties(all).create();
        return table(identifier).newTransaction();
    }

    @Override
    public Transaction replace(TableIdentifier identifier, Schema schema, Map<String, String> properties) {
        table(identifier);
        return tables.replace(identifier, schema, properties);
    }

    @Override
    public void drop(TableIdentifier identifier) {
        dropped.add(identifier);
    }

    @Override
    public Map<TableIdentifier, TableMetadata> commit() {
        List<TableCommit> commits = new ArrayList<>();
        Map<TableIdentifier, TableMetadata> committed = new LinkedHashMap<>();
        for (StagedTableOperations table : tables.all()) {
            if (table.changed()) {
                commits.add(TableCommit.create(table.identifier(), table.base(), table.current()));
                committed.put(table.identifier(), table.current());
            }
        }
        // The root last: a server that applies the tables one by one, in order, then has every other table of the
        // batch in place once the root shows it, which is how readers tell a whole batch (IcebergCatalogReader).
        commits.sort(Comparator.comparing(commit -> MirrorProperties.ROOT.equals(
                committed.get(commit.identifier()).properties().get(MirrorProperties.TABLE_ROLE))));
        if (!commits.isEmpty()) {
            observer.reached(CommitStep.CATALOG_COMMITTING, null);
            catalog.commitTransaction(commits);
            observer.reached(CommitStep.CATALOG_COMMITTED, null);
        }
        dropped.forEach(identifier -> catalog.dropTable(identifier, false));
        return committed;
    }
}
