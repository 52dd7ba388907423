package io.docmirror.mirror.iceberg;

import io.docmirror.layout.CatalogSettings;
import io.docmirror.mirror.MirrorErrorCode;
import io.docmirror.mirror.MirrorException;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.Transactions;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.io.FileIO;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * A {@link CatalogBatch} of the embedded SQLite catalog: changes to several tables that become visible together, or
 * not at all.
 *
 * <p>Iceberg's JdbcCatalog commits one table at a time: it moves the table's row in {@code iceberg_tables} from the
 * metadata file it started from to the new one ({@code UPDATE ... WHERE metadata_location = <expected>}). A batch
 * here stages each table's new metadata file first ({@link StagedTableOperations}), then moves every pointer in one
 * SQLite transaction, with the same compare-and-set per row. A crash before that transaction commits leaves every
 * table as it was (the staged files are orphans, collected later); SQLite's journal makes the transaction all or
 * nothing. Readers that load a container's pointers in one query (the SQL endpoint) see whole batches; engines that
 * load tables one by one see each table whole, and may see two tables of adjacent batches.
 */
public final class SqliteCatalogBatch implements CatalogBatch {
    private static final String SELECT_POINTER = "SELECT metadata_location FROM iceberg_tables WHERE catalog_name = ?"
            + " AND table_namespace = ? AND table_name = ? AND (iceberg_type = 'TABLE' OR iceberg_type IS NULL)";
    private static final String MOVE_POINTER = "UPDATE iceberg_tables SET metadata_location = ?, "
            + "previous_metadata_location = ? WHERE catalog_name = ? AND table_namespace = ? AND table_name = ? "
            + "AND metadata_location = ? AND (iceberg_type = 'TABLE' OR iceberg_type IS NULL)";
    private static final String DROP_POINTER = "DELETE FROM iceberg_tables WHERE catalog_name = ? AND "
            + "table_namespace = ? AND table_name = ? AND metadata_location = ? AND (iceberg_type = 'TABLE' OR "
            + "iceberg_type IS NULL)";
    private static final String INSERT_POINTER = "INSERT INTO iceberg_tables (catalog_name, table_namespace, "
            + "table_name, metadata_location, previous_metadata_location, iceberg_type) VALUES (?, ?, ?, ?, NULL, "
            + "'TABLE')";

    private final CatalogSettings settings;
    private final FileIO io;
    private final StagedTables tables;
    private final CommitObserver observer;
    /** The pointers the batch read, by table: a batch asks whether a table exists, then loads it. */
    private final Map<TableIdentifier, Optional<String>> pointers = new HashMap<>();
    /** Tables the batch drops, with the metadata the catalog pointed at when it was asked to. */
    private final Map<TableIdentifier, String> dropped = new LinkedHashMap<>();

    /** @param io the catalog's file access: where staged metadata files are written */
    public SqliteCatalogBatch(CatalogSettings settings, FileIO io) {
        this(settings, io, CommitObserver.NONE);
    }

    /** @param observer told of each step of the commit (a crash test's kill points) */
    SqliteCatalogBatch(CatalogSettings settings, FileIO io, CommitObserver observer) {
        if (settings.kind() != CatalogSettings.Kind.SQLITE) {
            throw new IllegalArgumentException("A catalog batch commits through the embedded SQLite catalog, not "
                    + settings.kind());
        }
        this.settings = settings;
        this.io = requireNonNull(io, "io is null");
        this.tables = new StagedTables(settings.name());
        this.observer = requireNonNull(observer, "observer is null");
    }

    /** Whether the catalog has the table now (a table this batch creates does not count until it commits). */
    @Override
    public boolean exists(TableIdentifier identifier) {
        return pointer(identifier) != null;
    }

    /** The table as this batch sees it: its changes are staged in the batch. */
    @Override
    public Table table(TableIdentifier identifier) {
        Optional<Table> staged = tables.find(identifier);
        if (staged.isPresent()) {
            return staged.get();
        }
        String location = pointer(identifier);
        if (location == null) {
            throw new IllegalArgumentException("The catalog has no table " + identifier);
        }
        return tables.add(identifier, StagedTableOperations.existing(identifier, io, location));
    }

    /** Starts a table that the batch creates: a format version 3 table at {@code location}, unpartitioned. */
    @Override
    public Transaction create(TableIdentifier identifier, Schema schema, String location,
            Map<String, String> properties) {
        if (tables.contains(identifier) || exists(identifier)) {
            throw new IllegalArgumentException("The catalog has a table " + identifier + " already");
        }
        Map<String, String> all = StagedTables.formatVersion3(properties);
        TableMetadata metadata = TableMetadata.newTableMetadata(schema, PartitionSpec.unpartitioned(),
                SortOrder.unsorted(), location, all);
        StagedTableOperations operations = StagedTableOperations.creating(identifier, io, metadata);
        tables.addCreated(identifier, operations);
        return Transactions.createTableTransaction(identifier.toString(), operations, metadata);
    }

    /**
     * Starts replacing a table the catalog has: the same table (its history of snapshots stays) with a new schema,
     * the given properties and, once the transaction adds them, new data files only.
     */
    @Override
    public Transaction replace(TableIdentifier identifier, Schema schema, Map<String, String> properties) {
        table(identifier);
        return tables.replace(identifier, schema, properties);
    }

    /** Drops a table in the batch: it leaves the catalog when the batch commits (its files stay for the cleanup). */
    @Override
    public void drop(TableIdentifier identifier) {
        String location = pointer(identifier);
        if (location == null) {
            throw new IllegalArgumentException("The catalog has no table " + identifier);
        }
        dropped.put(identifier, location);
    }

    /**
     * Moves every changed table's pointer to its staged metadata in one SQLite transaction.
     *
     * @return the tables that changed, with the metadata they now have
     * @throws CommitFailedException when a pointer moved since the batch read it (another writer); nothing changed
     * @throws CommitStateUnknownException when the SQL COMMIT (or what follows it) failed: the batch may be in it
     */
    @Override
    public Map<TableIdentifier, TableMetadata> commit() {
        Map<TableIdentifier, TableMetadata> committed = new LinkedHashMap<>();
        boolean sent = false;
        try (Connection sqlite = DriverManager.getConnection(settings.uri())) {
            sqlite.setAutoCommit(false);
            observer.reached(CommitStep.CATALOG_TRANSACTION_BEGUN, null);
            try {
                for (StagedTableOperations table : tables.all()) {
                    if (table.stagedLocation() == null) {
                        continue;
                    }
                    movePointer(sqlite, table);
                    observer.reached(CommitStep.POINTER_MOVED, table.identifier());
                    committed.put(table.identifier(), table.current());
                }
                for (Map.Entry<TableIdentifier, String> table : dropped.entrySet()) {
                    dropPointer(sqlite, table.getKey(), table.getValue());
                    observer.reached(CommitStep.POINTER_MOVED, table.getKey());
                }
                observer.reached(CommitStep.CATALOG_COMMITTING, null);
            } catch (SQLException | RuntimeException e) {
                sqlite.rollback();
                throw e;
            }
            sent = true;
            sqlite.commit();
            observer.reached(CommitStep.CATALOG_COMMITTED, null);
        } catch (SQLException | RuntimeException e) {
            if (sent) {
                // SQLite may have made the transaction durable before the error (or it failed closing the connection
                // after the commit): the batch may be in the catalog.
                throw e instanceof RuntimeException runtime ? runtime : new CommitStateUnknownException(e);
            }
            if (e instanceof CommitFailedException failed) {
                throw failed;
            }
            // Rolled back before the COMMIT: nothing of the batch is in the catalog.
            throw new CommitFailedException(e, "Cannot commit a batch of %s tables to the catalog %s",
                    tables.size(), settings.uri());
        }
        return committed;
    }

    private void movePointer(Connection sqlite, StagedTableOperations table) throws SQLException {
        TableIdentifier identifier = table.identifier();
        if (table.baseLocation() == null) {
            try (PreparedStatement insert = sqlite.prepareStatement(INSERT_POINTER)) {
                insert.setString(1, settings.name());
                insert.setString(2, namespace(identifier));
                insert.setString(3, identifier.name());
                insert.setString(4, table.stagedLocation());
                insert.executeUpdate();
            }
            return;
        }
        try (PreparedStatement update = sqlite.prepareStatement(MOVE_POINTER)) {
            update.setString(1, table.stagedLocation());
            update.setString(2, table.baseLocation());
            update.setString(3, settings.name());
            update.setString(4, namespace(identifier));
            update.setString(5, identifier.name());
            update.setString(6, table.baseLocation());
            if (update.executeUpdate() != 1) {
                throw new CommitFailedException("Cannot commit %s: its metadata moved since the batch read it "
                        + "(another writer?)", identifier);
            }
        }
    }

    private void dropPointer(Connection sqlite, TableIdentifier identifier, String location) throws SQLException {
        try (PreparedStatement delete = sqlite.prepareStatement(DROP_POINTER)) {
            delete.setString(1, settings.name());
            delete.setString(2, namespace(identifier));
            delete.setString(3, identifier.name());
            delete.setString(4, location);
            if (delete.executeUpdate() != 1) {
                throw new CommitFailedException("Cannot drop %s: its metadata moved since the batch read it "
                        + "(another writer?)", identifier);
            }
        }
    }

    /** Where the catalog points the table, as the batch first read it (null: no such table). */
    private String pointer(TableIdentifier identifier) {
        return pointers.computeIfAbsent(identifier, this::readPointer).orElse(null);
    }

    private Optional<String> readPointer(TableIdentifier identifier) {
        try (Connection sqlite = DriverManager.getConnection(settings.uri());
                PreparedStatement select = sqlite.prepareStatement(SELECT_POINTER)) {
            select.setString(1, settings.name());
            select.setString(2, namespace(identifier));
            select.setString(3, identifier.name());
            try (ResultSet row = select.executeQuery()) {
                return row.next() ? Optional.of(row.getString(1)) : Optional.empty();
            }
        } catch (SQLException e) {
            throw new MirrorException(MirrorErrorCode.IO_FAILURE,
                    "Cannot read the catalog " + settings.uri() + " for " + identifier, e);
        }
    }

    /** How JdbcCatalog writes a namespace: its levels joined by dots. */
    private static String namespace(TableIdentifier identifier) {
        return String.join(".", identifier.namespace().levels());
    }
}
