package io.docmirror.cli;

import com.fasterxml.jackson.core.JsonGenerator;
import org.duckdb.DuckDBStruct;

import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.sql.Array;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.util.Base64;
import java.util.Map;

/**
 * Writes a value that DuckDB's JDBC driver returned as JSON: LIST as an array, STRUCT and MAP as an object, DECIMAL
 * and HUGEINT exactly, NULL as null, times in ISO-8601, BLOB in Base64, anything else as its text.
 */
final class JsonValues {
    private JsonValues() {
    }

    static void write(JsonGenerator json, Object value) throws IOException, SQLException {
        if (value == null) {
            json.writeNull();
        } else if (value instanceof Boolean bool) {
            json.writeBoolean(bool);
        } else if (value instanceof BigDecimal decimal) {
            json.writeNumber(decimal.toPlainString());
        } else if (value instanceof BigInteger integer) {
            json.writeNumber(integer);
        } else if (value instanceof Long || value instanceof Integer || value instanceof Short
                || value instanceof Byte) {
            json.writeNumber(((Number) value).longValue());
        } else if (value instanceof Double || value instanceof Float) {
            double number = ((Number) value).doubleValue();
            if (Double.isFinite(number)) {
                json.writeNumber(number);
            } else {
                json.writeString(Double.toString(number));
            }
        } else if (value instanceof Array array) {
            json.writeStartArray();
            for (Object element : (Object[]) array.getArray()) {
                write(json, element);
            }
            json.writeEndArray();
        } else if (value instanceof DuckDBStruct struct) {
            // java.sql.Struct has the values but not the field names; DuckDB's struct has both.
            writeObject(json, struct.getMap());
        } else if (value instanceof Map<?, ?> map) {
            writeObject(json, map);
        } else if (value instanceof Timestamp timestamp) {
            json.writeString(timestamp.toLocalDateTime().toString());
        } else if (value instanceof byte[] bytes) {
            json.writeString(Base64.getEncoder().encodeToString(bytes));
        } else {
            json.writeString(value.toString());
        }
    }

    private static void writeObject(JsonGenerator json, Map<?, ?> map) throws IOException, SQLException {
        json.writeStartObject();
        for (Map.Entry<?, ?> entry : map.entrySet()) {
            json.writeFieldName(String.valueOf(entry.getKey()));
            write(json, entry.getValue());
        }
        json.writeEndObject();
    }
}
