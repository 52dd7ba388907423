package io.docmirror.sql.flight;

import org.apache.arrow.flight.sql.FlightSqlColumnMetadata;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;

import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The Flight SQL column metadata ({@code ARROW:FLIGHT:SQL:TYPE_NAME}, {@code PRECISION}, {@code SCALE},
 * {@code TABLE_NAME}, ...) on the top-level fields of a result's Arrow schema, which is what JDBC's
 * {@code ResultSetMetaData} and ADBC read: DuckDB's type name, precision and scale as JDBC defines them (digits of an
 * integer or a decimal, bits of a float's mantissa as ODBC counts them, characters of a date or time, fractional
 * digits of seconds), and read-only, since nothing here can be
 * written. Nullability is the Arrow field's own. DuckDB does not say which table a query's column comes from, so
 * only the columns of a table listed by {@code GetTables} carry its catalog, schema and table name.
 */
final class ColumnMetadata {
    private ColumnMetadata() {
    }

    /** {@code schema}, DuckDB's Arrow schema of a result, with the metadata of each column from {@code columns}. */
    static Schema ofResult(Schema schema, ResultSetMetaData columns) throws SQLException {
        List<Field> fields = new ArrayList<>();
        for (int index = 0; index < schema.getFields().size(); index++) {
            Field field = schema.getFields().get(index);
            fields.add(described(field, builder(field, typeName(field, columns, index)).build()));
        }
        return new Schema(fields, schema.getCustomMetadata());
    }

    /** {@code schema}, the Arrow schema of a whole table, with its columns' metadata and where they come from. */
    static Schema ofTable(Schema schema, ResultSetMetaData columns, String catalog, String dbSchema, String table)
            throws SQLException {
        List<Field> fields = new ArrayList<>();
        for (int index = 0; index < schema.getFields().size(); index++) {
            Field field = schema.getFields().get(index);
            fields.add(described(field, builder(field, typeName(field, columns, index)).catalogName(catalog)
                    .schemaName(dbSchema).tableName(table).build()));
        }
        return new Schema(fields, schema.getCustomMetadata());
    }

    /**
     * DuckDB's name of the column's type, but {@code DECIMAL} for {@code DECIMAL(p,s)}: precision and scale are
     * fields of their own, and JDBC tools match the name with the ones {@code GetXdbcTypeInfo} lists.
     */
    private static String typeName(Field field, ResultSetMetaData columns, int index) throws SQLException {
        String name = index < columns.getColumnCount() ? columns.getColumnTypeName(index + 1)
                : field.getType().toString();
        return name.startsWith("DECIMAL(") ? "DECIMAL" : name;
    }

    private static Field described(Field field, FlightSqlColumnMetadata metadata) {
        FieldType type = new FieldType(field.isNullable(), field.getType(), field.getDictionary(),
                metadata.getMetadataMap());
        return new Field(field.getName(), type, field.getChildren());
    }

    private static FlightSqlColumnMetadata.Builder builder(Field field, String typeName) {
        // No IS_AUTO_INCREMENT (false is what clients assume without it): ADBC's Java driver (0.18) writes it into
        // getObjects under a column name its own schema does not have, and then fails to read its own result.
        FlightSqlColumnMetadata.Builder builder = new FlightSqlColumnMetadata.Builder()
                .typeName(typeName)
                .isReadOnly(true)
                .isSearchable(true)
                .isCaseSensitive(field.getType() instanceof ArrowType.Utf8
                        || field.getType() instanceof ArrowType.LargeUtf8);
        ArrowType type = field.getType();
        if (type instanceof ArrowType.Decimal decimal) {
            builder.precision(decimal.getPrecision()).scale(decimal.getScale());
        } else if (type instanceof ArrowType.Int integer) {
            builder.precision(integerDigits(integer)).scale(0);
        } else if (type instanceof ArrowType.FloatingPoint floating) {
            builder.precision(switch (floating.getPrecision()) {
                case HALF -> 11;
                case SINGLE -> 24;
                case DOUBLE -> 53;
            });
        } else if (type instanceof ArrowType.Bool) {
            builder.precision(1).scale(0);
        } else if (type instanceof ArrowType.Date) {
            builder.precision("yyyy-mm-dd".length()).scale(0);
        } else if (type instanceof ArrowType.Time time) {
            int fraction = fractionDigits(time.getUnit());
            builder.precision("hh:mm:ss".length() + (fraction > 0 ? 1 + fraction : 0)).scale(fraction);
        } else if (type instanceof ArrowType.Timestamp timestamp) {
            int fraction = fractionDigits(timestamp.getUnit());
            int zone = timestamp.getTimezone() == null ? 0 : "+00:00".length();
            builder.precision("yyyy-mm-dd hh:mm:ss".length() + (fraction > 0 ? 1 + fraction : 0) + zone)
                    .scale(fraction);
        }
        return builder;
    }

    private static int integerDigits(ArrowType.Int integer) {
        return switch (integer.getBitWidth()) {
            case 8 -> 3;
            case 16 -> 5;
            case 32 -> 10;
            default -> integer.getIsSigned() ? 19 : 20;
        };
    }

    private static int fractionDigits(TimeUnit unit) {
        return switch (unit) {
            case SECOND -> 0;
            case MILLISECOND -> 3;
            case MICROSECOND -> 6;
            case NANOSECOND -> 9;
        };
    }
}
