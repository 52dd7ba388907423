package io.docmirror.mirror.iceberg;

import io.docmirror.flatten.SystemColumn;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Copies the live rows of a table's data files into the batch's current data file, and takes the files they came
 * from out of the table in the same commit; the documents' row places follow the rows. Two uses: compaction (many
 * small files and their deletion vectors become one file of live rows) and widening columns.
 *
 * <p>Widening, without rounding a value:
 * <p>The flattener widens a number column BIGINT → DOUBLE → DECIMAL, and a DECIMAL's scale grows; Iceberg promotes
 * none of these (only int → long, float → double and a decimal's precision). So a widened column is replaced: the
 * old field is dropped and a field of the same name and the wider type is added, in the batch's transaction, and
 * every live row of every data file that holds values of the old field is copied, its value converted exactly, into
 * the batch's current data file; those files leave the table in the same commit. Readers see the old schema and
 * files or the new ones, never a mix. Files where the column is absent or all null stay: the new field reads null
 * there. A double becomes a decimal through its shortest spelling, the number the flattener read.
 */
final class RowCopier {
    /** Told where moved rows went, so that the documents' places follow them. */
    interface RowMoves {
        /** One row of a document moved. */
        void moved(String documentKey, long from, long to);

        /**
         * The rows of committed data file {@code file} moved as {@code moved} says; the index finds their documents
         * in the file they went to when the batch commits. Only called when the copier was made to hand over files.
         */
        void fileMoved(String file, DocumentIndex.Moved moved);
    }

    private final TableChanges table;
    private final String keyColumn;
    private final DocumentIndex rows;
    private final RowMoves moves;
    private final boolean movesByFile;

    /**
     * @param keyColumn the column holding the document id of a row ({@code id} in a root table, {@code _id} in a
     *     child table; {@code _pk} completes the key), or null for a table whose rows no document index tracks
     *     (the history, the dead letters)
     * @param movesByFile whether the rows of a committed file are handed over as one move of the file (whatever the
     *     number of its rows and documents: what a batch holds stays bounded when a widening copies a whole
     *     table) rather than row by row (a rebuild, which writes each document's places straight into the index);
     *     the rows of files the batch wrote itself go row by row
     */
    RowCopier(TableChanges table, String keyColumn, DocumentIndex rows, RowMoves moves, boolean movesByFile) {
        this.table = table;
        this.keyColumn = keyColumn;
        this.rows = rows;
        this.moves = moves;
        this.movesByFile = movesByFile;
    }

    /**
     * Copies the rows holding values of the {@code widened} columns of {@code before} into the table's current data
     * file under its schema now ({@code after}), and takes the files they came from out of the table.
     *
     * @param committedVectors the table's committed deletion vectors, by data file
     */
    void widen(Schema before, Schema after, Set<String> widened, Map<String, DeleteFile> committedVectors) {
        table.roll();
        List<DataFile> added = table.addedFiles();
        // A committed file an earlier widening of the batch copied is on its way out: its rows are copies now.
        Set<String> leaving = Set.copyOf(table.leavingFiles());
        for (DataFile file : table.committedFiles()) {
            if (!leaving.contains(file.location()) && holdsValues(file, before, widened)) {
                copy(file, true, before, after, widened, committedVectors);
            }
        }
        for (DataFile file : added) {
            if (holdsValues(file, before, widened)) {
                copy(file, false, before, after, widened, committedVectors);
            }
        }
    }

    /** Copies the live rows of committed {@code files} into one new file (compaction); their vectors go too. */
    void compact(List<DataFile> files, Map<String, DeleteFile> committedVectors) {
        table.roll();
        Schema schema = table.table().schema();
        for (DataFile file : files) {
            copy(file, true, schema, schema, Set.of(), committedVectors);
        }
        table.roll();
    }

    /** Copies the live rows of {@code file} into the batch's current data file, and takes the file out. */
    private void copy(DataFile file, boolean committed, Schema before, Schema after, Set<String> widened,
            Map<String, DeleteFile> committedVectors) {
        String location = file.location();
        DeleteFile vector = committedVectors.get(location);
        FileMove byFile = keyColumn != null && committed && movesByFile
                ? new FileMove(Math.toIntExact(file.recordCount())) : null;
        LiveRows.read(table.table().io(), location, vector, before, (position, record) -> {
            if (table.isDeleted(location, position)) {
                return;
            }
            long to = table.write(widened.isEmpty() ? record : converted(record, before, after, widened));
            if (keyColumn == null) {
                return;
            }
            if (byFile == null || !byFile.add(position, table.currentFile(), to)) {
                // A row of a file the batch wrote, or one that went to a second file (the first was full).
                String key = DocumentIndex.key((String) record.getField(keyColumn),
                        (String) record.getField(SystemColumn.PARTITION_KEY.columnName()));
                moves.moved(key, rows.place(table.name(), location, position),
                        rows.place(table.name(), table.currentFile(), to));
            }
        });
        if (byFile != null && byFile.into != null) {
            moves.fileMoved(location, new DocumentIndex.Moved(table.name(), byFile.into, byFile.positions));
        }
        table.removeFile(file, vector);
    }

    /** Where the rows of one file went, while they all go into one file. */
    private static final class FileMove {
        final int[] positions;
        String into;

        FileMove(int rows) {
            positions = new int[rows];
            Arrays.fill(positions, -1);
        }

        /** Notes a row's move; false when it went to another file than the rows before it. */
        boolean add(long position, String file, long to) {
            if (into == null) {
                into = file;
            } else if (!into.equals(file)) {
                return false;
            }
            positions[Math.toIntExact(position)] = Math.toIntExact(to);
            return true;
        }
    }

    static Record converted(Record record, Schema before, Schema after, Set<String> widened) {
        GenericRecord copy = GenericRecord.create(after);
        for (Types.NestedField field : after.columns()) {
            if (before.findField(field.name()) == null) {
                continue;
            }
            Object value = record.getField(field.name());
            if (value != null && widened.contains(field.name())) {
                value = widen(value, field.type(), field.name());
            }
            copy.setField(field.name(), value);
        }
        return copy;
    }

    /** The value in the wider type, exactly. */
    static Object widen(Object value, Type to, String column) {
        try {
            return switch (to.typeId()) {
                case DECIMAL -> {
                    int scale = ((Types.DecimalType) to).scale();
                    BigDecimal exact = value instanceof Long whole ? BigDecimal.valueOf(whole)
                            : value instanceof Double real ? new BigDecimal(Double.toString(real))
                            : (BigDecimal) value;
                    yield exact.setScale(scale, RoundingMode.UNNECESSARY);
                }
                case DOUBLE -> {
                    long whole = (Long) value;
                    double real = whole;
                    if ((long) real != whole) {
                        throw new ArithmeticException(whole + " is not a double");
                    }
                    yield real;
                }
                case LIST -> {
                    Type element = ((Types.ListType) to).elementType();
                    List<Object> widenedElements = new ArrayList<>();
                    for (Object item : (List<?>) value) {
                        widenedElements.add(item == null ? null : widen(item, element, column));
                    }
                    yield widenedElements;
                }
                default -> value;
            };
        } catch (ArithmeticException | ClassCastException e) {
            throw new IllegalStateException("Cannot widen value " + value + " of column " + column + " to " + to
                    + " exactly", e);
        }
    }

    /** Whether a file may hold a non-null value of one of the widened columns (true when its metrics do not say). */
    static boolean holdsValues(DataFile file, Schema before, Set<String> widened) {
        for (String column : widened) {
            Types.NestedField field = before.findField(column);
            // A list's values are counted at its element.
            int id = field.type().isListType() ? ((Types.ListType) field.type()).elementId() : field.fieldId();
            Long values = file.valueCounts() == null ? null : file.valueCounts().get(id);
            Long nulls = file.nullValueCounts() == null ? null : file.nullValueCounts().get(id);
            if (values == null || nulls == null || values > nulls) {
                return true;
            }
        }
        return false;
    }
}
