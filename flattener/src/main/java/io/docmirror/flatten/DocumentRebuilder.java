package io.docmirror.flatten;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Rebuilds a document from its rows using only what the flattener recorded: each column's path, {@code _row} and
 * {@code _parent_row}, and the {@code _empty} and {@code _overflow} columns. It is the proof that flattening loses
 * nothing (the well-defined policy excepted, which reports its losses), and what a reconcile or an export uses to
 * turn mirrored rows back into JSON.
 *
 * <p>The rebuilt document carries the store's system properties that have columns ({@code id}, {@code _rid},
 * {@code _etag}, {@code _ts}, {@code _lsn}). Key order is not kept: JSON objects have none.
 */
public final class DocumentRebuilder {
    private static final JsonNodeFactory NODES = JsonNodeFactory.withExactBigDecimals(true);

    private DocumentRebuilder() {
    }

    /** @param rows the rows of one document, root row first, as {@link FlattenResult#rows()} gives them */
    public static ObjectNode rebuild(List<Row> rows) {
        if (rows.isEmpty() || !rows.get(0).table().isRoot()) {
            throw new IllegalArgumentException("Cannot rebuild a document without its root row");
        }
        Map<String, ObjectNode> objectsByRow = new HashMap<>();
        ObjectNode document = null;
        for (Row row : rows) {
            TableSchema table = row.table();
            JsonNode value = rowValue(row);
            if (table.isRoot()) {
                if (document != null) {
                    throw new IllegalArgumentException("Cannot rebuild one document from two root rows");
                }
                document = (ObjectNode) value;
                putSystemProperties(row, document);
                objectsByRow.put(rowKey(table.name(), ""), document);
                continue;
            }
            String parentRow = (String) row.value(SystemColumns.CHILD_PARENT_ROW);
            ObjectNode parent = objectsByRow.get(rowKey(table.parent().orElseThrow(), parentRow));
            if (parent == null) {
                throw new IllegalArgumentException("Cannot rebuild row " + row.value(SystemColumns.CHILD_ROW) + " of "
                        + table.name() + ": its parent row " + parentRow + " comes later or is missing");
            }
            ArrayNode array = arrayAt(parent, table.pathInParent());
            int index = Math.toIntExact((Long) row.value(SystemColumns.CHILD_IDX));
            while (array.size() <= index) {
                array.addNull();
            }
            array.set(index, value);
            if (value instanceof ObjectNode object) {
                objectsByRow.put(rowKey(table.name(), (String) row.value(SystemColumns.CHILD_ROW)), object);
            }
        }
        return document;
    }

    private static JsonNode rowValue(Row row) {
        TableSchema table = row.table();
        ObjectNode object = null;
        JsonNode element = null;
        for (int index = 0; index < table.columnCount(); index++) {
            Object value = row.value(index);
            Column column = table.column(index);
            if (value == null || column.role() == ColumnRole.SYSTEM) {
                continue;
            }
            if (column.role() == ColumnRole.EMPTY || column.role() == ColumnRole.OVERFLOW) {
                JsonNode partial = JsonText.read((String) value);
                if (partial.isObject() && element == null) {
                    object = merge(object == null ? NODES.objectNode() : object, (ObjectNode) partial);
                } else {
                    element = partial;
                }
                continue;
            }
            JsonNode json = toJson(value, column.tag());
            if (column.path().isEmpty()) {
                element = json;
            } else {
                if (object == null) {
                    object = NODES.objectNode();
                }
                setAt(object, column.path(), json);
            }
        }
        if (element != null) {
            return element;
        }
        return object != null ? object : NODES.objectNode();
    }

    private static JsonNode toJson(Object value, ValueTag tag) {
        if (value instanceof List<?> list) {
            ArrayNode array = NODES.arrayNode(list.size());
            for (Object element : list) {
                array.add(element == null ? NODES.nullNode() : toJson(element, null));
            }
            return array;
        }
        if (value instanceof Boolean bool) {
            return NODES.booleanNode(bool);
        }
        if (value instanceof Long number) {
            return NODES.numberNode(number);
        }
        if (value instanceof Double number) {
            return NODES.numberNode(number);
        }
        if (value instanceof BigDecimal number) {
            return NODES.numberNode(number);
        }
        if (value instanceof Instant instant) {
            return NODES.textNode(DateTimeFormatter.ISO_INSTANT.format(instant));
        }
        String text = (String) value;
        if (tag == ValueTag.JSON || tag == ValueTag.NUMBER) {
            // A number's literal reads back as the flattener read it: a number no decimal holds stays its text.
            return JsonText.read(text);
        }
        return NODES.textNode(text);
    }

    private static void putSystemProperties(Row row, ObjectNode document) {
        document.put("id", (String) row.value(SystemColumns.ID));
        if (row.value(SystemColumns.RID) != null) {
            document.put("_rid", (String) row.value(SystemColumns.RID));
        }
        if (row.value(SystemColumns.ETAG) != null) {
            document.put("_etag", (String) row.value(SystemColumns.ETAG));
        }
        if (row.value(SystemColumns.TS) != null) {
            document.put("_ts", (Long) row.value(SystemColumns.TS));
        }
        document.put("_lsn", (Long) row.value(SystemColumns.LSN));
    }

    private static void setAt(ObjectNode object, List<String> path, JsonNode value) {
        ObjectNode node = object;
        for (int step = 0; step < path.size() - 1; step++) {
            node = node.withObjectProperty(path.get(step));
        }
        node.set(path.get(path.size() - 1), value);
    }

    private static ArrayNode arrayAt(ObjectNode object, List<String> path) {
        ObjectNode node = object;
        for (int step = 0; step < path.size() - 1; step++) {
            node = node.withObjectProperty(path.get(step));
        }
        return node.withArrayProperty(path.get(path.size() - 1));
    }

    private static ObjectNode merge(ObjectNode target, ObjectNode source) {
        source.fields().forEachRemaining(field -> {
            JsonNode existing = target.get(field.getKey());
            if (existing instanceof ObjectNode existingObject && field.getValue() instanceof ObjectNode sourceObject) {
                merge(existingObject, sourceObject);
            } else {
                target.set(field.getKey(), field.getValue());
            }
        });
        return target;
    }

    private static String rowKey(String table, String rowPath) {
        return table + '\u0000' + rowPath;
    }
}
