package io.docmirror.mirror.iceberg;

import io.docmirror.flatten.Column;
import io.docmirror.flatten.ColumnType;
import io.docmirror.flatten.Row;
import io.docmirror.flatten.TableSchema;
import org.apache.avro.util.Utf8;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns a flattener's rows of one table into Iceberg records of the table's schema (for Iceberg's Parquet writer),
 * or through {@link #vectors} into Arrow vectors of it (for DuckDB's). A row made while a column was narrower is
 * widened here, exactly: the flattener guarantees its values fit every type the column widens to.
 *
 * <p>{@link #record} may run on another thread than the flattener's (an encoder thread), so it reads nothing of the
 * row's table, whose schema the flattener goes on changing: only the columns as they were when this was made.
 */
public final class RowRecords {
    private final String table;
    private final Schema schema;
    private final GenericRecord template;
    /** For each column of the flattened table, by index: its position in the Iceberg schema. */
    private final int[] positions;
    private final List<Column> columns;
    /** The same rows as Arrow vectors, for DuckDB's writer; made when first asked for. */
    private RowVectors vectors;

    /**
     * @throws IllegalArgumentException when a column of {@code table} has no field in {@code schema}: the
     *     table's schema must be evolved first
     */
    public RowRecords(TableSchema table, Schema schema) {
        this.table = table.name();
        this.schema = schema;
        this.template = GenericRecord.create(schema);
        this.columns = List.copyOf(table.columns());
        this.positions = new int[columns.size()];
        List<Types.NestedField> fields = schema.columns();
        for (int index = 0; index < columns.size(); index++) {
            String name = columns.get(index).name();
            int position = -1;
            for (int field = 0; field < fields.size(); field++) {
                if (fields.get(field).name().equals(name)) {
                    position = field;
                }
            }
            if (position < 0) {
                throw new IllegalArgumentException("The Iceberg table of " + table.name() + " has no field for "
                        + "column " + name);
            }
            positions[index] = position;
        }
    }

    public Schema schema() {
        return schema;
    }

    /** What makes these rows Arrow vectors of the same schema ({@link DuckDbFileWriter}). */
    synchronized RowVectors vectors() {
        if (vectors == null) {
            vectors = new RowVectors(this);
        }
        return vectors;
    }

    String table() {
        return table;
    }

    /** The columns of the flattened table as they were when this was made. */
    List<Column> columns() {
        return columns;
    }

    /** The position in the Iceberg schema of the flattened table's column at {@code columnIndex}. */
    int fieldPosition(int columnIndex) {
        return positions[columnIndex];
    }

    /**
     * Checks, on the flattener's thread, that the row's table has no more columns than when this was made: fewer is
     * fine (a row made before a column was added has no value for it).
     *
     * @throws IllegalArgumentException when it has more: the table's Iceberg schema must be evolved first
     */
    public void check(Row row) {
        if (row.table().columnCount() > columns.size()) {
            throw new IllegalArgumentException("A row of " + table + " has " + row.table().columnCount()
                    + " columns but its Iceberg schema was made for " + columns.size());
        }
    }

    /** The row as a record; see {@link #check}. */
    public Record record(Row row) {
        GenericRecord record = template.copy();
        for (int index = 0; index < columns.size(); index++) {
            Object value = row.value(index);
            if (value != null) {
                record.set(positions[index], convert(value, columns.get(index), columns.get(index).type()));
            }
        }
        return record;
    }

    private Object convert(Object value, Column column, ColumnType type) {
        try {
            return switch (type.kind()) {
                case BOOLEAN -> (Boolean) value;
                case BIGINT -> (Long) value;
                case DOUBLE -> doubleValue(value);
                case DECIMAL -> decimal(value, type);
                // As UTF-8 bytes, which Iceberg's Parquet writer takes as they are; from a String it would make a
                // buffer-backed binary, slower to compare for the column's statistics and to copy into its page.
                case VARCHAR, JSON -> new Utf8((String) value);
                case TIMESTAMP -> ((Instant) value).atOffset(ZoneOffset.UTC);
                case LIST -> {
                    List<?> elements = (List<?>) value;
                    List<Object> converted = new ArrayList<>(elements.size());
                    for (Object element : elements) {
                        converted.add(element == null ? null : convert(element, column, type.element()));
                    }
                    yield converted;
                }
            };
        } catch (ClassCastException | ArithmeticException e) {
            throw new IllegalStateException("Cannot write value " + value + " (" + value.getClass().getSimpleName()
                    + ") of column " + column.name() + " of table " + table + " as " + type.sql(), e);
        }
    }

    /** A value of a DECIMAL column (of {@code type}), exactly, at the column's scale. */
    static BigDecimal decimal(Object value, ColumnType type) {
        BigDecimal decimal;
        if (value instanceof BigDecimal exact) {
            decimal = exact;
        } else if (value instanceof Long whole) {
            decimal = BigDecimal.valueOf(whole);
        } else {
            // A double the flattener let into a DECIMAL column is one whose shortest spelling is its exact value.
            decimal = new BigDecimal(Double.toString((Double) value));
        }
        return decimal.setScale(type.scale(), RoundingMode.UNNECESSARY);
    }

    /** A value of a DOUBLE column: a whole number made before the column widened is exact as a double. */
    static double doubleValue(Object value) {
        return value instanceof Long whole ? (double) whole : (Double) value;
    }
}
