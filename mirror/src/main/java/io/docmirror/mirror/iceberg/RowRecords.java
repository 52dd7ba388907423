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
 * Turns a flattener's rows of one table into Iceberg records of the table's schema. A row made while a column was
 * narrower is widened here, exactly: the flattener guarantees its values fit every type the column widens to.
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
                case DOUBLE -> value instanceof Long whole ? (double) whole : (Double) value;
                case DECIMAL -> decimal(value).setScale(type.scale(), RoundingMode.UNNECESSARY);
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

    private static BigDecimal decimal(Object value) {
        if (value instanceof BigDecimal exact) {
            return exact;
        }
        if (value instanceof Long whole) {
            return BigDecimal.valueOf(whole);
        }
        // A double the flattener let into a DECIMAL column is one whose shortest spelling is its exact value.
        return new BigDecimal(Double.toString((Double) value));
    }
}
