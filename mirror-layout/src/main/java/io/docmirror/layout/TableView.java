package io.docmirror.layout;

import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableScan;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.function.LongConsumer;

/**
 * How DuckDB reads one snapshot of one of the mirror's Iceberg tables without its iceberg extension (which the JDBC
 * driver does not bundle and cannot download here): the snapshot's data files, read by Parquet field id, minus the
 * rows its deletion vectors delete.
 *
 * <p>DuckDB features relied on: {@code read_parquet} with {@code union_by_name} where the columns' names read the
 * files right ({@link ColumnNames}), and otherwise with {@code schema} (a map from field id to name, type and
 * default, so files written before a column was renamed or widened read right; a column a file lacks reads NULL
 * either way); {@code file_row_number}; a {@code BIT} string per data file with deleted rows, one bit a row
 * (which {@link #insertVectors} loads into a relation {@code (file VARCHAR, deleted BIT)}).
 *
 * <p>Why bits and not an anti join against the deleted positions: that join is paid for every row of every file
 * with a deletion vector, and random updates give every file one within seconds. Probing a hash table of every
 * deleted position cost the line items' group-by 6 times its scan; testing one bit of the row's file's vector costs
 * next to nothing. The files with deleted rows are read in one scan, which picks each row's vector by DuckDB's
 * {@code file_index} from a list of the files' vectors that one scalar subquery gives once a query. A scan a file
 * instead (the vector then a constant) ran the scans one after another and doubled a selective query's time; a join
 * of the scan to a relation of a row a file let DuckDB reorder the joins and test the bits inside a join condition,
 * 3.5 times the scan (BENCHMARKS.md, issue 29).
 */
public final class TableView {
    private final String table;
    private final Schema schema;
    private final List<String> dataFiles;
    /** The size each data file has by the table's metadata, by local path. */
    private final Map<String, Long> fileSizes;
    /** How many rows each data file holds by the table's metadata, by local path. */
    private final Map<String, Long> rowCounts;
    /** Each data file's deletion vector, by the data file's local path: read only when asked for. */
    private final Map<String, DeleteFile> vectors;
    private final FileIO io;
    /** The deleted positions of every file with a deletion vector, once {@link #deleted()} has read them. */
    private Map<String, PositionDeleteIndex> deleted;
    /** The deletion vectors that could not be read, each described: which rows are live in their files is unknown. */
    private List<String> unreadableVectors;
    /** Which files can be read by column name rather than through a field-id map; null: none. */
    private final ColumnNames names;

    private TableView(String table, Schema schema, Map<String, Long> fileSizes, Map<String, Long> rowCounts,
            Map<String, DeleteFile> vectors, FileIO io, ColumnNames names) {
        this.table = table;
        this.schema = schema;
        this.names = names;
        this.fileSizes = Map.copyOf(fileSizes);
        this.rowCounts = Map.copyOf(rowCounts);
        this.dataFiles = List.copyOf(fileSizes.keySet());
        this.vectors = Map.copyOf(vectors);
        this.io = io;
    }

    private TableView(String table, Schema schema, Map<String, Long> fileSizes, Map<String, Long> rowCounts,
            Map<String, PositionDeleteIndex> deleted) {
        this(table, schema, fileSizes, rowCounts, Map.of(), null, null);
        this.deleted = Map.copyOf(deleted);
        this.unreadableVectors = List.of();
    }

    /**
     * The view of the table's current snapshot; an empty view before its first.
     *
     * @param planner the threads the scan plans with ({@link IcebergWorkers})
     */
    public static TableView current(Table table, ExecutorService planner) {
        Snapshot snapshot = table.currentSnapshot();
        return snapshot == null ? new TableView(table.name(), table.schema(), Map.of(), Map.of(), Map.of())
                : of(table, snapshot.snapshotId(), planner);
    }

    /**
     * The view of one snapshot of the table, read with the schema the snapshot was written with. Its deletion vectors
     * are read when first needed.
     */
    public static TableView of(Table table, long snapshotId, ExecutorService planner) {
        Snapshot snapshot = table.snapshot(snapshotId);
        Schema schema = snapshot.schemaId() == null ? table.schema() : table.schemas().get(snapshot.schemaId());
        Map<String, Long> files = new LinkedHashMap<>();
        Map<String, Long> rowCounts = new LinkedHashMap<>();
        Map<String, DeleteFile> vectors = new LinkedHashMap<>();
        ColumnNames names = ColumnNames.of(table, schema);
        TableScan scan = table.newScan().useSnapshot(snapshotId).planWith(planner);
        if (names.mayReadByName()) {
            // The files' value counts say which columns each file holds.
            scan = scan.includeColumnStats();
        }
        try (CloseableIterable<FileScanTask> tasks = scan.planFiles()) {
            for (FileScanTask task : tasks) {
                String file = localPath(task.file().location());
                names.written(file, task.file());
                files.put(file, task.file().fileSizeInBytes());
                rowCounts.put(file, task.file().recordCount());
                for (DeleteFile vector : task.deletes()) {
                    vectors.put(file, vector);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot plan a read of " + table.name(), e);
        }
        return new TableView(table.name(), schema, files, rowCounts, vectors, table.io(), names);
    }

    /**
     * The view of some of a table's data files with their deleted positions ({@code deleted}, by file location):
     * what a compaction rewrites.
     */
    public static TableView ofFiles(String table, Schema schema, List<DataFile> files,
            Map<String, PositionDeleteIndex> deleted) {
        Map<String, Long> sizes = new LinkedHashMap<>();
        Map<String, Long> rowCounts = new LinkedHashMap<>();
        Map<String, PositionDeleteIndex> deletedByPath = new LinkedHashMap<>();
        for (DataFile file : files) {
            String path = localPath(file.location());
            sizes.put(path, file.fileSizeInBytes());
            rowCounts.put(path, file.recordCount());
            PositionDeleteIndex positions = deleted.get(file.location());
            if (positions != null && !positions.isEmpty()) {
                deletedByPath.put(path, positions);
            }
        }
        return new TableView(table, schema, sizes, rowCounts, deletedByPath);
    }

    public String table() {
        return table;
    }

    public Schema schema() {
        return schema;
    }

    /**
     * The data files, as local paths (the names DuckDB's {@code filename} column gives), or as their locations when
     * they are in an object store (which DuckDB cannot read here: {@link #inputFile} reads them).
     */
    public List<String> dataFiles() {
        return dataFiles;
    }

    /** The size {@code file} (one of {@link #dataFiles}) has by the table's metadata. */
    public long fileSize(String file) {
        return fileSizes.get(file);
    }

    /** The deletion vector of {@code file} (one of {@link #dataFiles}); empty when none of its rows is deleted. */
    public Optional<DeleteFile> vector(String file) {
        return Optional.ofNullable(vectors.get(file));
    }

    /** One of {@link #dataFiles}, to read through the table's FileIO (from an object store, say). */
    public InputFile inputFile(String file) {
        return io.newInputFile(file);
    }

    /** Whether {@code file}, one of {@link #dataFiles}, is on this machine's disk, where DuckDB reads it. */
    public static boolean isLocal(String file) {
        return LocalFileIO.isLocal(file);
    }

    /** The positions {@code vector} (one of {@link #vector}'s) deletes, read now. */
    public PositionDeleteIndex read(DeleteFile vector) {
        return DeletionVectors.read(io, vector);
    }

    /** Every deleted position, by file; the vectors are read at the first call. */
    private synchronized Map<String, PositionDeleteIndex> deleted() {
        if (deleted == null) {
            Map<String, PositionDeleteIndex> read = new LinkedHashMap<>();
            List<String> unreadable = new ArrayList<>();
            vectors.forEach((file, vector) -> {
                try {
                    read.put(file, DeletionVectors.read(io, vector));
                } catch (NotFoundException | UncheckedIOException e) {
                    // Damage like a data file's: this table fails to answer, the mirror's other tables go on.
                    unreadable.add(localPath(vector.location()) + " (the deletion vector of " + file
                            + ") cannot be read: " + e.getMessage());
                }
            });
            deleted = read;
            unreadableVectors = List.copyOf(unreadable);
        }
        return deleted;
    }

    /**
     * The data files that cannot be read as the metadata records them (missing, or of another size), and the
     * deletion vectors that could not be read, each described; a query of the table fails while there are any.
     */
    public List<String> damagedFiles() {
        List<String> damaged = new ArrayList<>();
        fileSizes.forEach((file, size) -> (io == null ? FileDamage.of(file, size) : FileDamage.of(io, file, size))
                .ifPresent(damaged::add));
        deleted();
        damaged.addAll(unreadableVectors);
        return damaged;
    }

    /** How many rows the deletion vectors delete. */
    public long deletedRows() {
        return deleted().values().stream().mapToLong(PositionDeleteIndex::cardinality).sum();
    }

    /**
     * Inserts the deletion vectors into {@code vectorRelation} {@code (file VARCHAR, deleted BIT)}: a row a data file
     * with deleted rows, its vector a character a row, {@code 1} for a deleted one.
     *
     * @throws IllegalStateException when a deletion vector could not be read: which rows are live is then unknown
     */
    public void insertVectors(Connection connection, String vectorRelation) throws SQLException {
        Map<String, PositionDeleteIndex> deleted = deleted();
        if (!unreadableVectors.isEmpty()) {
            throw new IllegalStateException("Cannot read the rows of " + table + ": "
                    + String.join("; ", unreadableVectors));
        }
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO " + vectorRelation
                + " VALUES (?, ?::BIT)")) {
            for (String file : deleted.keySet()) {
                insert.setString(1, file);
                insert.setString(2, bits(file));
                insert.execute();
            }
        }
    }

    /** The deletion vector of {@code file} as DuckDB's {@code BIT} text: a character a row, 1 for a deleted one. */
    private String bits(String file) {
        long rows = rowCounts.get(file);
        if (rows > Integer.MAX_VALUE) {
            // DuckDB's get_bit takes an INTEGER position; the mirror's files stay far below this.
            throw new IllegalStateException("Cannot read the rows of " + table + ": data file " + file + " holds "
                    + rows + " rows, more than a view can filter (" + Integer.MAX_VALUE + ")");
        }
        char[] bits = new char[(int) rows];
        Arrays.fill(bits, '0');
        deleted().get(file).forEach((LongConsumer) position -> bits[Math.toIntExact(position)] = '1');
        return new String(bits);
    }

    /**
     * The query of the table's live rows, every column under its name and in its DuckDB type: one scan of the files
     * without deleted rows and one of the files with some, which leaves out the rows their bits mark.
     *
     * @param vectorRelation a relation {@code (file VARCHAR, deleted BIT)} holding {@link #insertVectors}'s vectors
     *     (at least this table's), one row a file
     */
    public String select(String vectorRelation) {
        requireLocalFiles();
        String projection = projection();
        if (dataFiles.isEmpty()) {
            // read_parquet needs a file: an empty relation of the same columns and types.
            List<String> typed = new ArrayList<>();
            for (Types.NestedField field : schema.columns()) {
                typed.add("NULL::" + duckDbType(field.type()) + " AS " + identifier(field.name()));
            }
            return "SELECT " + String.join(", ", typed) + " WHERE false";
        }
        List<String> scans = new ArrayList<>();
        Map<String, PositionDeleteIndex> deleted = deleted();
        List<String> whole = dataFiles.stream().filter(file -> !deleted.containsKey(file)).toList();
        if (!whole.isEmpty()) {
            scans.add("SELECT " + projection + " FROM " + read(whole, false) + " d");
        }
        List<String> withDeletes = dataFiles.stream().filter(deleted::containsKey).toList();
        if (!withDeletes.isEmpty()) {
            List<String> indexed = new ArrayList<>();
            for (int index = 0; index < withDeletes.size(); index++) {
                indexed.add("(" + index + ", " + literal(withDeletes.get(index)) + ")");
            }
            // The files' vectors as one list in file_index order, computed once a query; a LEFT JOIN keeps a place
            // for every file.
            String vectors = "(SELECT list(v.deleted ORDER BY f.file_index) FROM (VALUES " + String.join(", ", indexed)
                    + ") f(file_index, file) LEFT JOIN " + vectorRelation + " v ON v.file = f.file)";
            scans.add("SELECT " + projection + " FROM " + read(withDeletes, true) + " d WHERE " + liveRows(vectors));
        }
        return String.join(" UNION ALL ", scans);
    }

    /**
     * The query of the live rows of the view's files in file order (the files as {@link #dataFiles} lists them, each
     * file's rows by position), in one scan with each deletion vector written into the query: what a compaction
     * writes into one file, so that each row's new position follows from the vectors alone. DuckDB keeps a scan's
     * order through filters and projections ({@code preserve_insertion_order}, on by default).
     */
    public String selectInFileOrder() {
        requireLocalFiles();
        Map<String, PositionDeleteIndex> deleted = deleted();
        List<String> vectors = dataFiles.stream()
                .map(file -> deleted.containsKey(file) ? literal(bits(file)) + "::BIT" : "NULL::BIT").toList();
        return "SELECT " + projection() + " FROM " + read(dataFiles, true) + " d"
                + (deleted.isEmpty() ? "" : " WHERE " + liveRows("[" + String.join(", ", vectors) + "]"));
    }

    /**
     * The query of every row of one data file (one of {@link #dataFiles}), deleted ones included: the table's
     * columns in schema order, then the row's position in the file ({@code file_row_number}).
     *
     * @param readFrom where DuckDB reads the file: {@code file} itself, or a local copy of it
     */
    public String selectWithPositions(String file, String readFrom) {
        return "SELECT " + projection() + ", d.file_row_number FROM " + read(List.of(file), List.of(readFrom), true)
                + " d";
    }

    /**
     * @throws IllegalStateException when a data file is in an object store: DuckDB reads local files only here (its
     *     httpfs extension is not available), and only the SQL endpoint's copy reads through the table's FileIO
     */
    private void requireLocalFiles() {
        dataFiles.stream().filter(file -> !isLocal(file)).findFirst().ifPresent(file -> {
            throw new IllegalStateException("Cannot read " + table + " with DuckDB: its files are in an object "
                    + "store (" + file + "). The SQL endpoint serves such tables; reconcile, rebuild and repair "
                    + "read local warehouses only, and Spark, Trino or pyiceberg read the tables through the "
                    + "catalog.");
        });
    }

    /** Every column of the table, read from the scan {@code d}. */
    private String projection() {
        return String.join(", ", schema.columns().stream().map(field -> "d." + identifier(field.name())).toList());
    }

    /**
     * The filter that leaves out deleted rows in one scan: {@code vectors} is a list of the scanned files' vectors in
     * the scan's order, which DuckDB's {@code file_index} picks from (a NULL vector: no row of the file is deleted).
     */
    private static String liveRows(String vectors) {
        return "coalesce(get_bit(" + vectors + "[(d.file_index + 1)::BIGINT], d.file_row_number::INTEGER), 0) = 0";
    }

    /**
     * A scan of {@code files}: by column name when that reads them right, because DuckDB then knows how many rows
     * they hold (with a field-id map it plans as if they held one, and picked plans that took a parent-child join
     * 35% longer); by field id otherwise.
     */
    private String read(List<String> files, boolean rowNumbers) {
        return read(files, files, rowNumbers);
    }

    /** {@link #read(List, boolean)} of {@code files}, found at {@code paths} (local copies, say). */
    private String read(List<String> files, List<String> paths, boolean rowNumbers) {
        return "read_parquet([" + String.join(", ", paths.stream().map(TableView::literal).toList()) + "]"
                + (rowNumbers ? ", file_row_number = true" : "")
                + (names != null && names.readByName(files) ? ", union_by_name = true" : ", schema = " + schemaMap())
                + ")";
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

    /** A local path of a {@code file:} location; any other location (an object store's) as it is. */
    private static String localPath(String location) {
        return LocalFileIO.isLocal(location) ? LocalFileIO.pathOf(location).toString() : location;
    }

    public static String identifier(String name) {
        return "\"" + name.replace("\"", "\"\"") + "\"";
    }

    public static String literal(String text) {
        return "'" + text.replace("'", "''") + "'";
    }
}
