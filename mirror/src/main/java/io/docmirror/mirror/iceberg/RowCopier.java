package io.docmirror.mirror.iceberg;

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
    /** Told where a moved row went, so that the document's places follow it. */
    interface RowMoves {
        void moved(String documentKey, long from, long to);
    }

    private final TableChanges table;
    private final String keyColumn;
    private final DocumentIndex rows;
    private final RowMoves moves;

    /**
     * @param keyColumn the column holding the document id of a row ({@code id} in a root table, {@code _id} in a
     *     child table; {@code _pk} completes the key), or null for a table whose rows no document index tracks
     *     (the history, the dead letters)
     */
    RowCopier(TableChanges table, String keyColumn, DocumentIndex rows, RowMoves moves) {
        this.table = table;
        this.keyColumn = keyColumn;
        this.rows = rows;
        this.moves = moves;
    }

    /**
     * Copies the rows holding values of the {@code widened} columns of {@code before} into the table's current data
     * file under its schema now ({@code after}), and takes the files they came from out of the table.
     *
     * @param committedVectors the table's committed deletion vectors, by data file
     */
    void widen(Schema before, Schema after, Set<String> widened, Map<String, DeleteFile> committedVectors) {
        table.roll();
        List<DataFile> affected = new ArrayList<>();
        List<DataFile> candidates = new ArrayList<>(table.committedFiles());
        candidates.addAll(table.addedFiles());
        for (DataFile file : candidates) {
            if (holdsValues(file, before, widened)) {
                affected.add(file);
            }
        }
        copy(affected, before, after, widened, committedVectors);
    }

    /** Copies the live rows of committed {@code files} into one new file (compaction); their vectors go too. */
    void compact(List<DataFile> files, Map<String, DeleteFile> committedVectors) {
        table.roll();
        Schema schema = table.table().schema();
        copy(files, schema, schema, Set.of(), committedVectors);
        table.roll();
    }

    private void copy(List<DataFile> files, Schema before, Schema after, Set<String> widened,
            Map<String, DeleteFile> committedVectors) {
        for (DataFile file : files) {
            DeleteFile vector = committedVectors.get(file.location());
            copyLiveRows(file.location(), vector, before, after, widened);
            table.removeFile(file, vector);
        }
    }

    private void copyLiveRows(String location, DeleteFile vector, Schema before, Schema after,
            Set<String> widened) {
        LiveRows.read(table.table().io(), location, vector, before, (position, record) -> {
            if (table.isDeleted(location, position)) {
                return;
            }
            long to = table.write(widened.isEmpty() ? record : converted(record, before, after, widened));
            if (keyColumn != null) {
                String key = DocumentIndex.key((String) record.getField(keyColumn), (String) record.getField("_pk"));
                moves.moved(key, rows.place(table.name(), location, position),
                        rows.place(table.name(), table.currentFile(), to));
            }
        });
    }

    private static Record converted(Record record, Schema before, Schema after, Set<String> widened) {
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
    private static boolean holdsValues(DataFile file, Schema before, Set<String> widened) {
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
