package io.docmirror.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.io.SerializedString;
import org.apache.commons.csv.CSVFormat;
import org.apache.commons.csv.CSVPrinter;

import java.io.IOException;
import java.io.PrintStream;
import java.io.OutputStreamWriter;
import java.io.StringWriter;
import java.io.Writer;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.sql.Array;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Struct;
import java.sql.Timestamp;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Prints a query's result as an aligned table, as CSV (RFC 4180, with a header) or as JSON lines. */
final class ResultPrinter {
    private static final JsonFactory JSON = new JsonFactory();

    enum Format { TABLE, CSV, JSONL }

    private ResultPrinter() {
    }

    /** @return the number of rows printed */
    static long print(ResultSet result, Format format, PrintStream out) throws SQLException, IOException {
        return switch (format) {
            case TABLE -> table(result, out);
            case CSV -> csv(result, out);
            case JSONL -> jsonLines(result, out);
        };
    }

    private static List<String> columnNames(ResultSet result) throws SQLException {
        ResultSetMetaData meta = result.getMetaData();
        List<String> names = new ArrayList<>();
        for (int column = 1; column <= meta.getColumnCount(); column++) {
            names.add(meta.getColumnLabel(column));
        }
        return names;
    }

    /** A value as table and CSV show it: LIST, STRUCT and MAP as JSON, other values as text, NULL as empty. */
    private static String text(Object value) throws SQLException, IOException {
        if (value == null) {
            return "";
        }
        if (value instanceof Array || value instanceof Struct || value instanceof Map) {
            StringWriter writer = new StringWriter();
            try (JsonGenerator json = JSON.createGenerator(writer)) {
                JsonValues.write(json, value);
            }
            return writer.toString();
        }
        if (value instanceof Timestamp timestamp) {
            return timestamp.toLocalDateTime().toString();
        }
        if (value instanceof Double number) {
            return plainText(number);
        }
        return value instanceof BigDecimal decimal ? decimal.toPlainString() : value.toString();
    }

    /**
     * A double in plain digits where that reads better (23858810.52, not 2.385881052E7), in Java's shortest
     * scientific form where plain digits would run long.
     */
    private static String plainText(double number) {
        double magnitude = Math.abs(number);
        if (Double.isFinite(number) && (magnitude == 0 || (magnitude >= 1e-4 && magnitude < 1e16))) {
            return BigDecimal.valueOf(number).stripTrailingZeros().toPlainString();
        }
        return Double.toString(number);
    }

    private static long table(ResultSet result, PrintStream out) throws SQLException, IOException {
        List<String> names = columnNames(result);
        List<String[]> rows = new ArrayList<>();
        int[] widths = names.stream().mapToInt(String::length).toArray();
        while (result.next()) {
            String[] row = new String[names.size()];
            for (int column = 0; column < row.length; column++) {
                Object value = result.getObject(column + 1);
                row[column] = value == null ? "NULL" : text(value);
                widths[column] = Math.max(widths[column], row[column].length());
            }
            rows.add(row);
        }
        printRow(out, names.toArray(String[]::new), widths);
        StringBuilder rule = new StringBuilder();
        for (int width : widths) {
            rule.append(rule.length() == 0 ? "" : "-+-").append("-".repeat(width));
        }
        out.println(rule);
        for (String[] row : rows) {
            printRow(out, row, widths);
        }
        out.println("(" + rows.size() + (rows.size() == 1 ? " row)" : " rows)"));
        return rows.size();
    }

    private static void printRow(PrintStream out, String[] cells, int[] widths) {
        StringBuilder line = new StringBuilder();
        for (int column = 0; column < cells.length; column++) {
            if (column > 0) {
                line.append(" | ");
            }
            line.append(cells[column]).append(" ".repeat(widths[column] - cells[column].length()));
        }
        out.println(line.toString().stripTrailing());
    }

    private static long csv(ResultSet result, PrintStream out) throws SQLException, IOException {
        List<String> names = columnNames(result);
        Writer writer = new OutputStreamWriter(out, StandardCharsets.UTF_8);
        long rows = 0;
        CSVPrinter csv = new CSVPrinter(writer, CSVFormat.RFC4180.builder()
                .setHeader(names.toArray(String[]::new)).get());
        while (result.next()) {
            List<String> row = new ArrayList<>(names.size());
            for (int column = 1; column <= names.size(); column++) {
                row.add(text(result.getObject(column)));
            }
            csv.printRecord(row);
            rows++;
        }
        csv.flush();
        return rows;
    }

    private static long jsonLines(ResultSet result, PrintStream out) throws SQLException, IOException {
        List<String> names = columnNames(result);
        long rows = 0;
        JsonGenerator json = JSON.createGenerator(out);
        json.setRootValueSeparator(new SerializedString("\n"));
        json.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
        while (result.next()) {
            json.writeStartObject();
            for (int column = 1; column <= names.size(); column++) {
                json.writeFieldName(names.get(column - 1));
                JsonValues.write(json, result.getObject(column));
            }
            json.writeEndObject();
            rows++;
        }
        if (rows > 0) {
            json.writeRaw('\n');
        }
        json.close();
        return rows;
    }
}
