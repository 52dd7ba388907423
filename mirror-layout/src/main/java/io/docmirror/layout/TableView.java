package io.docmirror.layout;

import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.function.LongConsumer;

/**
 * How DuckDB reads one snapshot of one of the mirror's Iceberg tables without its iceberg extension (which the JDBC
 * driver does not bundle and cannot download here): the snapshot's data files, read by Parquet field id, minus the
 * rows its deletion vectors delete.
 *
 * <p>DuckDB features relied on: {@code read_parquet} with {@code schema} (a map from field id to name, type and
 * default, so files written before a column was added or renamed read right, and a column a file lacks reads
 * NULL), {@code filename} and {@code file_row_number}; an anti join against a relation of deleted positions
 * ({@code file VARCHAR, pos BIGINT}), which the reader fills from {@link #forEachDeleted}.
 */
public final class TableView {
    private final String table;
    private final Schema schema;
    private final List<String> dataFiles;
    /** The size each data file has by the table's metadata, by local path. */
    private final Map<String, Long> fileSizes;
    private final Map<String, PositionDeleteIndex> deleted;
    /** The deletion vectors that could not be read, each described: which rows are live in their files is unknown. */
    private final List<String> unreadableVectors;

    private TableView(String table, Schema schema, Map<String, Long> fileSizes,
            Map<String, PositionDeleteIndex> deleted, List<String> unreadableVectors) {
        this.table = table;
        this.schema = schema;
        this.fileSizes = Map.copyOf(fileSizes);
        this.dataFiles = List.copyOf(fileSizes.keySet());
        this.deleted = deleted;
        this.unreadableVectors = List.copyOf(unreadableVectors);
    }

    /**
     * The view of the table's current snapshot; an empty view before its first.
     *
     * @param planner the threads the scan plans with ({@link IcebergWorkers})
     */
    public static TableView current(Table table, ExecutorService planner) {
        Snapshot snapshot = table.currentSnapshot();
        return snapshot == null ? new TableView(table.name(), table.schema(), Map.of(), Map.of(), List.of())
                : of(table, snapshot.snapshotId(), planner);
    }

    /** The view of one snapshot of the table, read with the schema the snapshot was written with. */
    public static TableView of(Table table, long snapshotId, ExecutorService planner) {
        Snapshot snapshot = table.snapshot(snapshotId);
        Schema schema = snapshot.schemaId() == null ? table.schema() : table.schemas().get(snapshot.schemaId());
        Map<String, Long> files = new LinkedHashMap<>();
        Map<String, PositionDeleteIndex> deleted = new LinkedHashMap<>();
        List<String> unreadableVectors = new ArrayList<>();
        try (CloseableIterable<FileScanTask> tasks = table.newScan().useSnapshot(snapshotId).planWith(planner)
                .planFiles()) {
            for (FileScanTask task : tasks) {
                String file = localPath(task.file().location());
                files.put(file, task.file().fileSizeInBytes());
                for (DeleteFile vector : task.deletes()) {
                    try {
                        deleted.put(file, DeletionVectors.read(table.io(), vector));
                    } catch (NotFoundException | UncheckedIOException e) {
                        // Damage like a data file's: this table fails to answer, the mirror's other tables go on.
                        unreadableVectors.add(localPath(vector.location()) + " (the deletion vector of " + file
                                + ") cannot be read: " + e.getMessage());
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot plan a read of " + table.name(), e);
        }
        return new TableView(table.name(), schema, files, deleted, unreadableVectors);
    }

    public String table() {
        return table;
    }

    public Schema schema() {
        return schema;
    }

    /** The data files, as local paths (the names DuckDB's {@code filename} column gives). */
    public List<String> dataFiles() {
        return dataFiles;
    }

    /**
     * The data files that cannot be read as the metadata records them (missing, or of another size), and the
     * deletion vectors that could not be read, each described; a query of the table fails while there are any.
     */
    public List<String> damagedFiles() {
        List<String> damaged = new ArrayList<>();
        fileSizes.forEach((file, size) -> FileDamage.of(file, size).ifPresent(damaged::add));
        damaged.addAll(unreadableVectors);
        return damaged;
    }

    /** How many rows the deletion vectors delete. */
    public long deletedRows() {
        return deleted.values().stream().mapToLong(PositionDeleteIndex::cardinality).sum();
    }

    /**
     * Hands every deleted row to {@code consumer}: its data file (a local path) and position.
     *
     * @throws IllegalStateException when a deletion vector could not be read: which rows are live is then unknown
     */
    public void forEachDeleted(DeletedRowConsumer consumer) {
        if (!unreadableVectors.isEmpty()) {
            throw new IllegalStateException("Cannot read the rows of " + table + ": "
                    + String.join("; ", unreadableVectors));
        }
        deleted.forEach((file, positions) -> positions.forEach((LongConsumer) position ->
                consumer.accept(file, position)));
    }

    /** Receives a deleted row. */
    @FunctionalInterface
    public interface DeletedRowConsumer {
        void accept(String file, long position);
    }

    /**
     * The query of the table's live rows, every column under its name and in its DuckDB type.
     *
     * @param deletedRelation a relation {@code (file VARCHAR, pos BIGINT)} holding {@link #forEachDeleted}'s rows
     *     (at least this table's)
     */
    public String select(String deletedRelation) {
        List<String> columns = new ArrayList<>();
        for (Types.NestedField field : schema.columns()) {
            columns.add("d." + identifier(field.name()));
        }
        String projection = String.join(", ", columns);
        if (dataFiles.isEmpty()) {
            // read_parquet needs a file: an empty relation of the same columns and types.
            List<String> typed = new ArrayList<>();
            for (Types.NestedField field : schema.columns()) {
                typed.add("NULL::" + duckDbType(field.type()) + " AS " + identifier(field.name()));
            }
            return "SELECT " + String.join(", ", typed) + " WHERE false";
        }
        String read = "read_parquet([" + String.join(", ", dataFiles.stream().map(TableView::literal).toList())
                + "], filename = true, file_row_number = true, schema = " + schemaMap() + ")";
        if (deleted.isEmpty()) {
            return "SELECT " + projection + " FROM " + read + " d";
        }
        return "SELECT " + projection + " FROM " + read + " d ANTI JOIN " + deletedRelation
                + " x ON x.file = d.filename AND x.pos = d.file_row_number";
    }

    private String schemaMap() {
        List<String> entries = new ArrayList<>();
        for (Types.NestedField field : schema.columns()) {
            entries.add(field.fieldId() + ": {name: " + literal(field.name()) + ", type: "
                    + literal(duckDbType(field.type())) + ", default_value: NULL}");
        }
        return "MAP {" + String.join(", ", entries) + "}";
    }

    /** DuckDB's type for an Iceberg type the mirror writes. */
    public static String duckDbType(Type type) {
        return switch (type.typeId()) {
            case BOOLEAN -> "BOOLEAN";
            case INTEGER -> "INTEGER";
            case LONG -> "BIGINT";
            case FLOAT -> "FLOAT";
            case DOUBLE -> "DOUBLE";
            case DECIMAL -> "DECIMAL(" + ((Types.DecimalType) type).precision() + ", "
                    + ((Types.DecimalType) type).scale() + ")";
            case STRING -> "VARCHAR";
            case TIMESTAMP -> ((Types.TimestampType) type).shouldAdjustToUTC() ? "TIMESTAMPTZ" : "TIMESTAMP";
            case DATE -> "DATE";
            case LIST -> duckDbType(((Types.ListType) type).elementType()) + "[]";
            default -> throw new IllegalArgumentException("The mirror writes no Iceberg " + type + " columns");
        };
    }

    /** A local path of a {@code file:} location. */
    private static String localPath(String location) {
        return LocalFileIO.pathOf(location).toString();
    }

    public static String identifier(String name) {
        return "\"" + name.replace("\"", "\"\"") + "\"";
    }

    public static String literal(String text) {
        return "'" + text.replace("'", "''") + "'";
    }
}
