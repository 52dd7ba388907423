package io.docmirror.mirror.parquet;

import io.docmirror.flatten.Column;
import io.docmirror.flatten.ColumnType;
import io.docmirror.flatten.Row;
import io.docmirror.flatten.TableSchema;
import io.docmirror.mirror.manifest.ColumnEntry;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * How the rows of one table, at one version of its schema, are laid out in Parquet: an Avro record schema with one
 * nullable field per column, and the conversion of a flattener {@link Row} into a record of it.
 *
 * <p>Types: BOOLEAN, BIGINT (int64), DOUBLE, DECIMAL(38,s) (16-byte fixed, decimal logical type), VARCHAR and JSON
 * (UTF-8 strings), TIMESTAMP (int64 microseconds, a local timestamp that holds UTC, so DuckDB reads TIMESTAMP),
 * LIST (a three-level Parquet list of nullable elements). A row made while a column was narrower is widened here,
 * exactly: the flattener guarantees its values fit every type the column widens to.
 */
public final class TableFormat {
    private static final int DECIMAL_BYTES = 16;

    private final String table;
    private final List<Column> columns;
    private final List<String> physicalNames;
    private final Schema schema;

    private TableFormat(String table, List<Column> columns) {
        this.table = table;
        this.columns = List.copyOf(columns);
        this.physicalNames = PhysicalNames.of(this.columns);
        List<Schema.Field> fields = new ArrayList<>(columns.size());
        for (int index = 0; index < this.columns.size(); index++) {
            Schema type = avroType(this.columns.get(index).type(), "d" + index);
            fields.add(new Schema.Field(physicalNames.get(index), nullable(type), null, Schema.Field.NULL_DEFAULT_VALUE));
        }
        this.schema = Schema.createRecord("row", null, "io.docmirror", false, fields);
    }

    /** The format of {@code table}'s columns as they are now. */
    public static TableFormat of(TableSchema table) {
        requireNonNull(table, "table is null");
        return new TableFormat(table.name(), table.columns());
    }

    public String table() {
        return table;
    }

    public Schema schema() {
        return schema;
    }

    public List<Column> columns() {
        return columns;
    }

    public List<String> physicalNames() {
        return physicalNames;
    }

    /** What the manifest records of these columns. */
    public List<ColumnEntry> columnEntries() {
        return columnEntries(columns, physicalNames);
    }

    /** What the manifest records of {@code table}'s columns as they are now. */
    public static List<ColumnEntry> columnEntries(TableSchema table) {
        return columnEntries(table.columns(), PhysicalNames.of(table.columns()));
    }

    private static List<ColumnEntry> columnEntries(List<Column> columns, List<String> physicalNames) {
        List<ColumnEntry> entries = new ArrayList<>(columns.size());
        for (int index = 0; index < columns.size(); index++) {
            Column column = columns.get(index);
            entries.add(new ColumnEntry(column.name(), physicalNames.get(index), column.type().sql(),
                    column.role().catalogName(), column.jsonPath().toString()));
        }
        return entries;
    }

    /** The index of the column named {@code name}; the system columns always exist. */
    public int indexOf(String name) {
        for (int index = 0; index < columns.size(); index++) {
            if (columns.get(index).name().equals(name)) {
                return index;
            }
        }
        throw new IllegalArgumentException("Table " + table + " has no column " + name);
    }

    /**
     * The row as a record of this format.
     *
     * @throws IllegalArgumentException when the row has a column this format does not know: the table's schema
     *     grew since the format was made (the writer must start a new file)
     */
    public GenericRecord record(Row row) {
        if (row.table().columnCount() > columns.size()) {
            throw new IllegalArgumentException("A row of " + table + " has " + row.table().columnCount()
                    + " columns but this file's format has " + columns.size());
        }
        GenericData.Record record = new GenericData.Record(schema);
        for (int index = 0; index < columns.size(); index++) {
            Object value = row.value(index);
            if (value != null) {
                record.put(index, convert(value, columns.get(index).type(), index));
            }
        }
        return record;
    }

    /** An empty record to fill by column index: tombstones. */
    public GenericRecord emptyRecord() {
        return new GenericData.Record(schema);
    }

    private Object convert(Object value, ColumnType type, int index) {
        try {
            return switch (type.kind()) {
                case BOOLEAN -> (Boolean) value;
                case BIGINT -> (Long) value;
                case DOUBLE -> value instanceof Long whole ? (double) whole : (Double) value;
                case DECIMAL -> decimal(value).setScale(type.scale(), RoundingMode.UNNECESSARY);
                case VARCHAR, JSON -> (String) value;
                case TIMESTAMP -> ChronoUnit.MICROS.between(Instant.EPOCH, (Instant) value);
                case LIST -> {
                    List<?> elements = (List<?>) value;
                    List<Object> converted = new ArrayList<>(elements.size());
                    for (Object element : elements) {
                        converted.add(element == null ? null : convert(element, type.element(), index));
                    }
                    yield converted;
                }
            };
        } catch (ClassCastException | ArithmeticException e) {
            throw new IllegalStateException("Cannot write value " + value + " (" + value.getClass().getSimpleName()
                    + ") of column " + columns.get(index).name() + " of table " + table + " as " + type.sql(), e);
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

    private static Schema avroType(ColumnType type, String fixedName) {
        return switch (type.kind()) {
            case BOOLEAN -> Schema.create(Schema.Type.BOOLEAN);
            case BIGINT -> Schema.create(Schema.Type.LONG);
            case DOUBLE -> Schema.create(Schema.Type.DOUBLE);
            case DECIMAL -> LogicalTypes.decimal(ColumnType.DECIMAL_PRECISION, type.scale())
                    .addToSchema(Schema.createFixed(fixedName, null, "io.docmirror", DECIMAL_BYTES));
            case VARCHAR, JSON -> Schema.create(Schema.Type.STRING);
            case TIMESTAMP -> LogicalTypes.localTimestampMicros().addToSchema(Schema.create(Schema.Type.LONG));
            case LIST -> Schema.createArray(nullable(avroType(type.element(), fixedName)));
        };
    }

    static Schema nullable(Schema type) {
        return Schema.createUnion(Schema.create(Schema.Type.NULL), type);
    }
}
