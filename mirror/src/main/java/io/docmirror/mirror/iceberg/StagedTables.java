package io.docmirror.mirror.iceberg;

import org.apache.iceberg.BaseTable;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.Transactions;
import org.apache.iceberg.catalog.TableIdentifier;

import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/** The tables a {@link CatalogBatch} has staged changes of: their operations, and each as a table to change. */
final class StagedTables {
    private final String catalogName;
    private final Map<TableIdentifier, StagedTableOperations> operations = new LinkedHashMap<>();
    private final Map<TableIdentifier, Table> tables = new HashMap<>();

    StagedTables(String catalogName) {
        this.catalogName = catalogName;
    }

    /** The table as the batch has it, when the batch has staged it (loaded, replaced or created). */
    Optional<Table> find(TableIdentifier identifier) {
        Table table = tables.get(identifier);
        if (table == null && operations.containsKey(identifier) && operations.get(identifier).current() != null) {
            // A table the batch replaces: its staged changes, not the catalog's state. (A table the batch creates
            // has no metadata until its transaction commits.)
            table = new BaseTable(operations.get(identifier), catalogName + "." + identifier);
            tables.put(identifier, table);
        }
        return Optional.ofNullable(table);
    }

    /** Stages a table with its operations; returns it as the batch has it. */
    Table add(TableIdentifier identifier, StagedTableOperations staged) {
        operations.put(identifier, staged);
        tables.remove(identifier);
        return find(identifier).orElseThrow();
    }

    /** Registers the operations of a table the batch creates (a transaction changes it, not a table). */
    void addCreated(TableIdentifier identifier, StagedTableOperations staged) {
        operations.put(identifier, staged);
    }

    /**
     * Starts replacing a staged table (see {@link CatalogBatch#replace}); its table view is forgotten, as the replace
     * transaction takes its operations over.
     */
    Transaction replace(TableIdentifier identifier, Schema schema, Map<String, String> properties) {
        Table table = find(identifier).orElseThrow();
        StagedTableOperations staged = operations.get(identifier);
        TableMetadata current = staged.current();
        TableMetadata replacement = current.buildReplacement(schema, PartitionSpec.unpartitioned(),
                SortOrder.unsorted(), current.location(), formatVersion3(properties));
        tables.remove(identifier);
        return Transactions.replaceTableTransaction(table.name(), staged, replacement);
    }

    /** A new or replaced table's properties: {@code properties}, in format version 3. */
    static Map<String, String> formatVersion3(Map<String, String> properties) {
        Map<String, String> all = new HashMap<>(properties);
        all.put(TableProperties.FORMAT_VERSION, "3");
        return all;
    }

    boolean contains(TableIdentifier identifier) {
        return operations.containsKey(identifier);
    }

    Collection<StagedTableOperations> all() {
        return operations.values();
    }

    int size() {
        return operations.size();
    }
}
