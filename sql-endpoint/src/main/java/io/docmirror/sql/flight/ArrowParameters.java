package io.docmirror.sql.flight;

import org.apache.arrow.vector.DateDayVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.TimeMicroVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.apache.arrow.vector.util.Text;

import java.sql.ParameterMetaData;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.List;

/**
 * A prepared query's parameters in Arrow: the schema a client is told (from the types DuckDB inferred for each
 * {@code ?}), and the values a client sends, bound to the DuckDB statement.
 */
final class ArrowParameters {
    private ArrowParameters() {
    }

    /** One nullable field per parameter, {@code parameter_1} and on; a parameter of no inferred type is text. */
    static Schema schema(ParameterMetaData parameters) throws SQLException {
        List<Field> fields = new ArrayList<>();
        for (int index = 1; index <= parameters.getParameterCount(); index++) {
            fields.add(new Field("parameter_" + index, FieldType.nullable(arrowType(parameters, index)), null));
        }
        return new Schema(fields);
    }

    private static ArrowType arrowType(ParameterMetaData parameters, int index) throws SQLException {
        return switch (parameters.getParameterType(index)) {
            case Types.BOOLEAN -> ArrowType.Bool.INSTANCE;
            case Types.TINYINT, Types.SMALLINT, Types.INTEGER -> new ArrowType.Int(32, true);
            case Types.BIGINT -> new ArrowType.Int(64, true);
            case Types.FLOAT, Types.REAL, Types.DOUBLE -> new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE);
            case Types.DECIMAL, Types.NUMERIC ->
                    new ArrowType.Decimal(parameters.getPrecision(index), parameters.getScale(index), 128);
            case Types.DATE -> new ArrowType.Date(DateUnit.DAY);
            case Types.TIME -> new ArrowType.Time(TimeUnit.MICROSECOND, 64);
            case Types.TIMESTAMP -> new ArrowType.Timestamp(TimeUnit.MICROSECOND, null);
            case Types.BLOB, Types.BINARY, Types.VARBINARY -> ArrowType.Binary.INSTANCE;
            default -> ArrowType.Utf8.INSTANCE;
        };
    }

    /**
     * The values of row {@code row} of {@code sent} (one column per parameter, in order) as JDBC objects.
     *
     * @throws SQLException when the client sent another number of values than the query has parameters
     */
    static Object[] values(VectorSchemaRoot sent, int row, int parameterCount) throws SQLException {
        List<FieldVector> vectors = sent.getFieldVectors();
        if (vectors.size() != parameterCount) {
            throw new SQLException("The query has " + parameterCount + " parameters but " + vectors.size()
                    + " values were sent", "07001");
        }
        Object[] values = new Object[parameterCount];
        for (int index = 0; index < parameterCount; index++) {
            values[index] = jdbcValue(vectors.get(index), row);
        }
        return values;
    }

    private static Object jdbcValue(FieldVector vector, int row) {
        if (vector.isNull(row)) {
            return null;
        }
        if (vector instanceof DateDayVector days) {
            return java.sql.Date.valueOf(LocalDate.ofEpochDay(days.get(row)));
        }
        if (vector instanceof TimeMicroVector micros) {
            return java.sql.Time.valueOf(LocalTime.ofNanoOfDay(micros.get(row) * 1000));
        }
        Object value = vector.getObject(row);
        if (value instanceof Text text) {
            return text.toString();
        }
        if (value instanceof LocalDateTime dateTime) {
            return Timestamp.valueOf(dateTime);
        }
        return value;
    }
}
