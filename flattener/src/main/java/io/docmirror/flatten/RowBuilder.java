package io.docmirror.flatten;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.Arrays;
import java.util.List;

/**
 * A row being filled while its document is walked. Values with no column of their own are placed in {@code _empty}
 * or {@code _overflow} by their path: the property names from the row down to the value.
 */
final class RowBuilder {
    final TableSchema table;
    /** {@code _row}: {@code ""} for the root row, {@code items[3].discounts[1]} for a child row. */
    final String rowPath;
    private final RowBuilder parent;
    private final int index;
    /**
     * Begins as long as the table's last row needed and grows when a value lands past its end. Rows of a wide table
     * often fill only a few of its columns, and the columns they fill tend to be the same as the last row's; an
     * array as long as the table would cost its whole length to allocate for every row.
     */
    private Object[] values;
    /** One past the last column that has a value. */
    private int width;
    private JsonNode empty;
    private JsonNode overflow;

    RowBuilder(TableSchema table, RowBuilder parent, int index, String rowPath) {
        this.table = table;
        this.parent = parent;
        this.index = index;
        this.rowPath = rowPath;
        this.values = new Object[table.lastRowWidth()];
    }

    void set(int columnIndex, Object value) {
        if (columnIndex >= values.length) {
            values = Arrays.copyOf(values, Math.max(columnIndex + 1, values.length * 2));
        }
        width = Math.max(width, columnIndex + 1);
        values[columnIndex] = value;
    }

    /** Records an explicit null, {@code {}} or {@code []}, which no column can tell from a missing property. */
    void markEmpty(List<String> path, JsonNode value) {
        empty = placeAtPath(empty, path, value);
    }

    void overflow(List<String> path, JsonNode value) {
        overflow = placeAtPath(overflow, path, value);
    }

    /** Where the value at {@code path} is, from the document's root: {@code /items/3/price}. */
    JsonPointer pointer(List<String> path) {
        JsonPointer pointer = rowPointer();
        for (String propertyName : path) {
            pointer = pointer.appendProperty(propertyName);
        }
        return pointer;
    }

    private JsonPointer rowPointer() {
        if (parent == null) {
            return JsonPointer.empty();
        }
        JsonPointer pointer = parent.rowPointer();
        for (String propertyName : table.pathInParent()) {
            pointer = pointer.appendProperty(propertyName);
        }
        return pointer.appendIndex(index);
    }

    private static JsonNode placeAtPath(JsonNode partial, List<String> path, JsonNode value) {
        if (path.isEmpty()) {
            return value;
        }
        ObjectNode root = partial instanceof ObjectNode object ? object : JsonNodeFactory.instance.objectNode();
        ObjectNode node = root;
        for (String propertyName : path.subList(0, path.size() - 1)) {
            node = node.withObjectProperty(propertyName);
        }
        node.set(path.get(path.size() - 1), value);
        return root;
    }

    /** Whether building this row adds {@code _empty} or {@code _overflow} to its table. */
    boolean addsReservedColumn() {
        return (empty != null && !table.hasEmptyColumn()) || (overflow != null && !table.hasOverflowColumn());
    }

    Row build() {
        if (empty != null) {
            set(table.emptyColumnIndex(), table.emptyText(empty));
        }
        if (overflow != null) {
            set(table.overflowColumnIndex(), JsonText.write(overflow));
        }
        table.rowBuilt(width);
        return new Row(table, values);
    }
}
