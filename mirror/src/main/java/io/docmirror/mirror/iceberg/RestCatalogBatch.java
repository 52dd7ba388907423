package io.docmirror.mirror.iceberg;

import org.apache.iceberg.BaseTable;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.Transactions;
import org.apache.iceberg.catalog.TableCommit;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.rest.RESTCatalog;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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
    private final Map<TableIdentifier, StagedTableOperations> tables = new LinkedHashMap<>();
    private final Map<TableIdentifier, Table> loaded = new HashMap<>();
    private final List<TableIdentifier> dropped = new ArrayList<>();

    RestCatalogBatch(RESTCatalog catalog, FileIO io) {
        this.catalog = catalog;
        this.io = io;
    }

    @Override
    public boolean exists(TableIdentifier identifier) {
        return catalog.tableExists(identifier);
    }

    @Override
    public Table table(TableIdentifier identifier) {
        Table table = loaded.get(identifier);
        if (table != null) {
            return table;
        }
        StagedTableOperations staged = tables.get(identifier);
        if (staged != null) {
            // A table the batch replaces or creates: its staged changes, not the catalog's state.
            table = new BaseTable(staged, catalog.name() + "." + identifier);
            loaded.put(identifier, table);
            return table;
        }
        TableMetadata base = ((HasTableOperations) catalog.loadTable(identifier)).operations().current();
        StagedTableOperations operations = StagedTableOperations.updating(identifier, io, base);
        tables.put(identifier, operations);
        table = new BaseTable(operations, catalog.name() + "." + identifier);
        loaded.put(identifier, table);
        return table;
    }

    @Override
    public Transaction create(TableIdentifier identifier, Schema schema, String location,
            Map<String, String> properties) {
        Map<String, String> all = new HashMap<>(properties);
        all.put(TableProperties.FORMAT_VERSION, "3");
        catalog.buildTable(identifier, schema).withPartitionSpec(PartitionSpec.unpartitioned())
                .withSortOrder(SortOrder.unsorted()).withLocation(location).withProperties(all).create();
        return table(identifier).newTransaction();
    }

    @Override
    public Transaction replace(TableIdentifier identifier, Schema schema, Map<String, String> properties) {
        Table table = table(identifier);
        TableMetadata current = tables.get(identifier).current();
        Map<String, String> all = new HashMap<>(properties);
        all.put(TableProperties.FORMAT_VERSION, "3");
        TableMetadata replacement = current.buildReplacement(schema, PartitionSpec.unpartitioned(),
                SortOrder.unsorted(), current.location(), all);
        loaded.remove(identifier);
        return Transactions.replaceTableTransaction(table.name(), tables.get(identifier), replacement);
    }

    @Override
    public void drop(TableIdentifier identifier) {
        dropped.add(identifier);
    }

    @Override
    public Map<TableIdentifier, TableMetadata> commit() {
        List<TableCommit> commits = new ArrayList<>();
        Map<TableIdentifier, TableMetadata> committed = new LinkedHashMap<>();
        for (StagedTableOperations table : tables.values()) {
            if (table.changed()) {
                commits.add(TableCommit.create(table.identifier(), table.base(), table.current()));
                committed.put(table.identifier(), table.current());
            }
        }
        if (!commits.isEmpty()) {
            catalog.commitTransaction(commits);
        }
        dropped.forEach(identifier -> catalog.dropTable(identifier, false));
        return committed;
    }
}
