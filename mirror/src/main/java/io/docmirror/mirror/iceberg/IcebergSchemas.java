package io.docmirror.mirror.iceberg;

import io.docmirror.flatten.Column;
import io.docmirror.flatten.ColumnType;
import io.docmirror.flatten.TableSchema;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * How a flattened table's columns are Iceberg fields: one optional field per column, under the column's SQL name,
 * with the column's JSON path as the field's doc.
 *
 * <p>Types: BOOLEAN → boolean, BIGINT → long, DOUBLE → double, DECIMAL(38,s) → decimal(38,s), VARCHAR and
 * JSON → string, TIMESTAMP → timestamptz (microseconds), T[] → list of optional T. Iceberg assigns the field ids: a new
 * table's in column order, a later column's when it is added; the mirror finds a column's field by name.
 */
public final class IcebergSchemas {
    private IcebergSchemas() {
    }

    /** The schema of a new table holding {@code table}'s columns as they are now. */
    public static Schema of(TableSchema table) {
        // Placeholder ids, unique within the schema: creating the table assigns fresh ones.
        AtomicInteger ids = new AtomicInteger();
        List<Types.NestedField> fields = new ArrayList<>();
        for (Column column : table.columns()) {
            fields.add(Types.NestedField.optional(ids.incrementAndGet(), column.name(), type(column.type(), ids),
                    column.jsonPath().toString()));
        }
        return new Schema(fields);
    }

    /** The Iceberg type of a column type; a list's element gets an id from {@code ids}. */
    static Type type(ColumnType type, AtomicInteger ids) {
        return switch (type.kind()) {
            case BOOLEAN -> Types.BooleanType.get();
            case BIGINT -> Types.LongType.get();
            case DOUBLE -> Types.DoubleType.get();
            case DECIMAL -> Types.DecimalType.of(ColumnType.DECIMAL_PRECISION, type.scale());
            case VARCHAR, JSON -> Types.StringType.get();
            case TIMESTAMP -> Types.TimestampType.withZone();
            case LIST -> Types.ListType.ofOptional(ids.incrementAndGet(), type(type.element(), ids));
        };
    }

    /** The Iceberg type of a column type, for a column added to an existing table (Iceberg numbers its parts). */
    public static Type type(ColumnType type) {
        return type(type, new AtomicInteger());
    }
}
