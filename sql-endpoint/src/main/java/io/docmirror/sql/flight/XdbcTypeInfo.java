package io.docmirror.sql.flight;

import org.apache.arrow.flight.sql.FlightSqlProducer.Schemas;
import org.apache.arrow.flight.sql.impl.FlightSql.CommandGetXdbcTypeInfo;
import org.apache.arrow.flight.sql.impl.FlightSql.Searchable;
import org.apache.arrow.flight.sql.impl.FlightSql.XdbcDataType;
import org.apache.arrow.flight.sql.impl.FlightSql.XdbcDatetimeSubcode;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BitVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.ListVector;
import org.apache.arrow.vector.complex.impl.UnionListWriter;
import org.apache.arrow.vector.util.Text;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The answer to {@code GetXdbcTypeInfo} (JDBC's {@code getTypeInfo}): the DuckDB types a mirrored table or a query
 * result has, with their XDBC type codes, sizes and literal syntax.
 */
final class XdbcTypeInfo {
    private static final int NULLABLE = 1;

    /** One row; null for a value the type does not have. */
    private record XdbcType(String name, XdbcDataType dataType, Integer columnSize, String literalPrefix,
            String literalSuffix, List<String> createParams, boolean caseSensitive, Searchable searchable,
            Boolean unsigned, boolean fixedPrecisionScale, Integer minimumScale, Integer maximumScale,
            XdbcDataType sqlDataType, XdbcDatetimeSubcode datetimeSubcode, Integer radix) {
    }

    private static final List<XdbcType> TYPES = List.of(
            number("BOOLEAN", XdbcDataType.XDBC_BIT, 1, null),
            number("TINYINT", XdbcDataType.XDBC_TINYINT, 3, 10),
            number("SMALLINT", XdbcDataType.XDBC_SMALLINT, 5, 10),
            number("INTEGER", XdbcDataType.XDBC_INTEGER, 10, 10),
            number("BIGINT", XdbcDataType.XDBC_BIGINT, 19, 10),
            number("FLOAT", XdbcDataType.XDBC_REAL, 24, 2),
            number("DOUBLE", XdbcDataType.XDBC_DOUBLE, 53, 2),
            new XdbcType("DECIMAL", XdbcDataType.XDBC_DECIMAL, 38, null, null, List.of("precision", "scale"),
                    false, Searchable.SEARCHABLE_BASIC, false, true, 0, 38, XdbcDataType.XDBC_DECIMAL, null, 10),
            new XdbcType("VARCHAR", XdbcDataType.XDBC_VARCHAR, null, "'", "'", null, true,
                    Searchable.SEARCHABLE_FULL, null, false, null, null, XdbcDataType.XDBC_VARCHAR, null, null),
            new XdbcType("BLOB", XdbcDataType.XDBC_VARBINARY, null, "'", "'::BLOB", null, false,
                    Searchable.SEARCHABLE_BASIC, null, false, null, null, XdbcDataType.XDBC_VARBINARY, null, null),
            datetime("DATE", XdbcDataType.XDBC_DATE, 10, "DATE '", 0, XdbcDatetimeSubcode.XDBC_SUBCODE_DATE),
            datetime("TIME", XdbcDataType.XDBC_TIME, 15, "TIME '", 6, XdbcDatetimeSubcode.XDBC_SUBCODE_TIME),
            datetime("TIMESTAMP", XdbcDataType.XDBC_TIMESTAMP, 26, "TIMESTAMP '", 6,
                    XdbcDatetimeSubcode.XDBC_SUBCODE_TIMESTAMP),
            datetime("TIMESTAMP WITH TIME ZONE", XdbcDataType.XDBC_TIMESTAMP, 32, "TIMESTAMPTZ '", 6,
                    XdbcDatetimeSubcode.XDBC_SUBCODE_TIMESTAMP_WITH_TIMEZONE));

    private XdbcTypeInfo() {
    }

    private static XdbcType number(String name, XdbcDataType type, int size, Integer radix) {
        boolean integer = radix != null && radix == 10;
        return new XdbcType(name, type, size, null, null, null, false, Searchable.SEARCHABLE_BASIC,
                radix == null ? null : false, integer, integer ? 0 : null, integer ? 0 : null, type, null, radix);
    }

    private static XdbcType datetime(String name, XdbcDataType type, int size, String prefix, int scale,
            XdbcDatetimeSubcode subcode) {
        return new XdbcType(name, type, size, prefix, "'", null, false, Searchable.SEARCHABLE_BASIC, null, false,
                scale, scale, XdbcDataType.XDBC_DATETIME, subcode, null);
    }

    /** The rows of {@code command}: every type, or those of its {@code data_type}. */
    static VectorSchemaRoot rows(CommandGetXdbcTypeInfo command, BufferAllocator allocator) {
        List<XdbcType> types = TYPES.stream()
                .filter(type -> !command.hasDataType() || type.dataType().getNumber() == command.getDataType())
                .toList();
        VectorSchemaRoot root = VectorSchemaRoot.create(Schemas.GET_TYPE_INFO_SCHEMA, allocator);
        try {
            root.allocateNew();
            ListVector createParams = (ListVector) root.getVector("create_params");
            UnionListWriter params = createParams.getWriter();
            for (int row = 0; row < types.size(); row++) {
                XdbcType type = types.get(row);
                text(root, "type_name", row, type.name());
                integer(root, "data_type", row, type.dataType().getNumber());
                integer(root, "column_size", row, type.columnSize());
                text(root, "literal_prefix", row, type.literalPrefix());
                text(root, "literal_suffix", row, type.literalSuffix());
                if (type.createParams() == null) {
                    createParams.setNull(row);
                } else {
                    params.setPosition(row);
                    params.startList();
                    for (String param : type.createParams()) {
                        params.writeVarChar(new Text(param));
                    }
                    params.endList();
                }
                integer(root, "nullable", row, NULLABLE);
                flag(root, "case_sensitive", row, type.caseSensitive());
                integer(root, "searchable", row, type.searchable().getNumber());
                flag(root, "unsigned_attribute", row, type.unsigned());
                flag(root, "fixed_prec_scale", row, type.fixedPrecisionScale());
                flag(root, "auto_increment", row, false);
                text(root, "local_type_name", row, type.name());
                integer(root, "minimum_scale", row, type.minimumScale());
                integer(root, "maximum_scale", row, type.maximumScale());
                integer(root, "sql_data_type", row, type.sqlDataType().getNumber());
                integer(root, "datetime_subcode", row,
                        type.datetimeSubcode() == null ? null : type.datetimeSubcode().getNumber());
                integer(root, "num_prec_radix", row, type.radix());
                integer(root, "interval_precision", row, null);
            }
            params.setValueCount(types.size());
            root.setRowCount(types.size());
            return root;
        } catch (RuntimeException e) {
            root.close();
            throw e;
        }
    }

    private static void text(VectorSchemaRoot root, String column, int row, String value) {
        VarCharVector vector = (VarCharVector) root.getVector(column);
        if (value == null) {
            vector.setNull(row);
        } else {
            vector.setSafe(row, value.getBytes(StandardCharsets.UTF_8));
        }
    }

    private static void integer(VectorSchemaRoot root, String column, int row, Integer value) {
        IntVector vector = (IntVector) root.getVector(column);
        if (value == null) {
            vector.setNull(row);
        } else {
            vector.setSafe(row, value);
        }
    }

    private static void flag(VectorSchemaRoot root, String column, int row, Boolean value) {
        BitVector vector = (BitVector) root.getVector(column);
        if (value == null) {
            vector.setNull(row);
        } else {
            vector.setSafe(row, value ? 1 : 0);
        }
    }
}
