package io.docmirror.mirror.iceberg;

import io.docmirror.flatten.Column;
import io.docmirror.flatten.ColumnType;
import io.docmirror.flatten.Row;
import org.apache.arrow.vector.BaseFixedWidthVector;
import org.apache.arrow.vector.BaseVariableWidthVector;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.DecimalVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.Float8Vector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.ValueVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns a flattener's rows of one table into Arrow vectors of the table's Iceberg schema, which DuckDB's Parquet writer
 * takes ({@link DuckDbFileWriter}): the columns, fields and exact widening of a {@link RowRecords}.
 *
 * <p>Types: boolean → Bool, long → Int64, double → Float64, decimal(p,s) → Decimal128(p,s), string → Utf8,
 * timestamptz → Timestamp(microseconds, UTC), list → List of the element's type. Each Arrow field has its Iceberg
 * field's name; DuckDB's writer gives it the field's id ({@link DuckDbParquet}).
 *
 * <p>{@link #fill} runs on DuckDB's threads, not the flattener's, so it reads nothing of the row's table, whose schema
 * the flattener goes on changing: only the columns as they were when the {@link RowRecords} was made.
 */
final class RowVectors {
    private final RowRecords mapping;
    private final org.apache.arrow.vector.types.pojo.Schema arrowSchema;

    RowVectors(RowRecords mapping) {
        this.mapping = mapping;
        List<Field> arrowFields = new ArrayList<>();
        for (Types.NestedField field : mapping.schema().columns()) {
            arrowFields.add(arrowField(field.name(), field.type()));
        }
        this.arrowSchema = new org.apache.arrow.vector.types.pojo.Schema(arrowFields);
    }

    Schema schema() {
        return mapping.schema();
    }

    org.apache.arrow.vector.types.pojo.Schema arrowSchema() {
        return arrowSchema;
    }

    /** Checks, on the flattener's thread, that the row fits ({@link RowRecords#check}). */
    void check(Row row) {
        mapping.check(row);
    }

    /** Fills {@code root}, a root of {@link #arrowSchema}, with {@code rows}; see {@link #check}. */
    void fill(VectorSchemaRoot root, List<Row> rows) {
        for (FieldVector vector : root.getFieldVectors()) {
            vector.setInitialCapacity(rows.size());
        }
        root.allocateNew();
        List<Column> columns = mapping.columns();
        FieldVector[] vectors = new FieldVector[columns.size()];
        for (int index = 0; index < vectors.length; index++) {
            vectors[index] = root.getVector(mapping.fieldPosition(index));
        }
        // Row by row, so that a row's values are read while they are in the cache: filled column by column, the root
        // table's rows (34 columns) took 3.9 µs each against 2.3 (BENCHMARKS.md, issue 29, session 26).
        for (int row = 0; row < rows.size(); row++) {
            Row current = rows.get(row);
            for (int index = 0; index < vectors.length; index++) {
                Object value = current.value(index);
                if (value != null) {
                    Column column = columns.get(index);
                    set(vectors[index], row, value, column, column.type());
                }
            }
        }
        root.setRowCount(rows.size());
    }

    /** Sets a non-null value of {@code column} (of {@code type}: the column's, or its list's element type). */
    private void set(ValueVector vector, int index, Object value, Column column, ColumnType type) {
        try {
            switch (type.kind()) {
                case BOOLEAN -> ((BitVector) vector).setSafe(index, (Boolean) value ? 1 : 0);
                case BIGINT -> ((BigIntVector) vector).setSafe(index, (Long) value);
                case DOUBLE -> ((Float8Vector) vector).setSafe(index, RowRecords.doubleValue(value));
                case DECIMAL -> ((DecimalVector) vector).setSafe(index, RowRecords.decimal(value, type));
                case VARCHAR, JSON -> ((VarCharVector) vector).setSafe(index,
                        ((String) value).getBytes(StandardCharsets.UTF_8));
                case TIMESTAMP -> ((TimeStampMicroTZVector) vector).setSafe(index, micros((Instant) value));
                case LIST -> {
                    ListVector list = (ListVector) vector;
                    List<?> elements = (List<?>) value;
                    int first = list.startNewValue(index);
                    ValueVector data = list.getDataVector();
                    for (int element = 0; element < elements.size(); element++) {
                        if (elements.get(element) == null) {
                            setNull(data, first + element);
                        } else {
                            set(data, first + element, elements.get(element), column, type.element());
                        }
                    }
                    list.endValue(index, elements.size());
                }
            }
        } catch (ClassCastException | ArithmeticException e) {
            throw new IllegalStateException("Cannot write value " + value + " (" + value.getClass().getSimpleName()
                    + ") of column " + column.name() + " of table " + mapping.table() + " as " + type.sql(), e);
        }
    }

    /** Makes a list's element null (each kind of vector grows to hold it). */
    private static void setNull(ValueVector vector, int index) {
        if (vector instanceof ListVector list) {
            list.setNull(index);
        } else if (vector instanceof BaseFixedWidthVector fixed) {
            fixed.setNull(index);
        } else {
            ((BaseVariableWidthVector) vector).setNull(index);
        }
    }

    /** Microseconds since the epoch: exact, as the flattener types as TIMESTAMP no text finer than microseconds. */
    private static long micros(Instant instant) {
        if (instant.getNano() % 1_000 != 0) {
            throw new ArithmeticException("The timestamp " + instant + " is finer than microseconds");
        }
        return Math.addExact(Math.multiplyExact(instant.getEpochSecond(), 1_000_000L), instant.getNano() / 1_000);
    }

    /** The Arrow field of an Iceberg field of a flattened table ({@link IcebergSchemas}). */
    private static Field arrowField(String name, Type type) {
        if (type instanceof Types.ListType list) {
            return new Field(name, FieldType.nullable(ArrowType.List.INSTANCE),
                    List.of(arrowField("element", list.elementType())));
        }
        if (type instanceof Types.TimestampType timestamp && !timestamp.shouldAdjustToUTC()) {
            throw new IllegalArgumentException("A flattened table's timestamps are timestamptz, not " + type + " ("
                    + name + ")");
        }
        ArrowType arrowType = switch (type.typeId()) {
            case BOOLEAN -> ArrowType.Bool.INSTANCE;
            case LONG -> new ArrowType.Int(64, true);
            case DOUBLE -> new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
            case DECIMAL -> new ArrowType.Decimal(((Types.DecimalType) type).precision(),
                    ((Types.DecimalType) type).scale(), 128);
            case STRING -> ArrowType.Utf8.INSTANCE;
            case TIMESTAMP -> new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC");
            default -> throw new IllegalArgumentException("A flattened table has no " + type + " field (" + name
                    + ")");
        };
        return new Field(name, FieldType.nullable(arrowType), null);
    }
}
