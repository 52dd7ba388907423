package io.docmirror.flatten;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Renders what the flattener produced as golden files a reviewer can read: {@code expected/<table>.csv} (NULL is an
 * empty field, a string is always quoted, so {@code ""} is the empty string) and {@code schema.json} (tables,
 * columns with JSON path and role, conflicts, overflows, losses and dead letters).
 */
final class GoldenRendering {
    private GoldenRendering() {
    }

    static Map<String, String> render(ContainerSchema schema, List<FlattenResult> results) {
        Map<String, String> files = new LinkedHashMap<>();
        for (TableSchema table : schema.tables()) {
            StringBuilder csv = new StringBuilder();
            List<Column> columns = table.columns();
            for (int index = 0; index < columns.size(); index++) {
                csv.append(index == 0 ? "" : ",").append(quote(columns.get(index).name()));
            }
            csv.append('\n');
            for (FlattenResult result : results) {
                for (Row row : result.rows()) {
                    if (row.table() != table) {
                        continue;
                    }
                    for (int index = 0; index < columns.size(); index++) {
                        csv.append(index == 0 ? "" : ",").append(field(row.value(index)));
                    }
                    csv.append('\n');
                }
            }
            files.put("expected/" + table.name() + ".csv", csv.toString());
        }
        files.put("schema.json", schemaJson(schema, results));
        return files;
    }

    private static String schemaJson(ContainerSchema schema, List<FlattenResult> results) {
        ObjectNode root = JsonNodeFactory.instance.objectNode();
        ArrayNode tables = root.putArray("tables");
        for (TableSchema table : schema.tables()) {
            ObjectNode json = tables.addObject();
            json.put("name", table.name());
            json.put("parent", table.parent().orElse(null));
            json.put("jsonPath", table.jsonPath().toString());
            ArrayNode columns = json.putArray("columns");
            for (Column column : table.columns()) {
                columns.add(column.name() + " " + column.type().sql() + " " + column.role().catalogName() + " "
                        + column.jsonPath());
            }
        }
        ArrayNode conflicts = root.putArray("conflicts");
        schema.conflicts().forEach(conflict -> conflicts.add(conflict.table() + " " + conflict.path() + ": kept "
                + conflict.keptType() + ", saw " + conflict.seenType() + " -> " + conflict.resolution() + " ("
                + conflict.count() + "x, " + conflict.sampleIds() + ")"));
        ArrayNode overflows = root.putArray("overflows");
        schema.overflows().forEach(overflow -> overflows.add(overflow.table() + " " + overflow.path() + " ("
                + overflow.count() + "x, " + overflow.sampleIds() + ")"));
        ArrayNode losses = root.putArray("losses");
        ArrayNode deadLetters = root.putArray("deadLetters");
        for (FlattenResult result : results) {
            result.losses().forEach(loss -> losses.add(loss.location() + ": kept " + loss.keptType() + ", saw "
                    + loss.seenType()));
            result.deadLetter().ifPresent(letter -> deadLetters.add(letter.id() + ": " + letter.reason()));
        }
        root.put("version", schema.version());
        return root.toPrettyString() + "\n";
    }

    private static String field(Object value) {
        if (value == null) {
            return "";
        }
        if (value instanceof String text) {
            return quote(text);
        }
        if (value instanceof BigDecimal decimal) {
            return decimal.toPlainString();
        }
        if (value instanceof List<?> list) {
            StringBuilder text = new StringBuilder("[");
            for (int index = 0; index < list.size(); index++) {
                Object element = list.get(index);
                text.append(index == 0 ? "" : ", ").append(element == null ? "NULL"
                        : element instanceof String string ? "'" + string + "'"
                        : element instanceof BigDecimal decimal ? decimal.toPlainString()
                        : element.toString());
            }
            return quote(text.append(']').toString());
        }
        if (value instanceof Instant instant) {
            return instant.toString();
        }
        return value.toString();
    }

    private static String quote(String text) {
        return '"' + text.replace("\"", "\"\"") + '"';
    }
}
