package io.docmirror.flatten;

import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.Arrays;
import java.util.List;

/**
 * A row being filled while its document is walked. It knows where in the row the walk is (the property names from
 * the row down), so that values with no column of their own land at the right place in {@code _empty} or
 * {@code _overflow}.
 */
final class RowBuilder {
    final TableSchema table;
    /** {@code _row}: {@code ""} for the root row, {@code items[3].discounts[1]} for a child row. */
    final String rowPath;
    private final RowBuilder parent;
    private final int index;
    /** The walker's stack of property names; this row's part starts at {@code base}. */
    private final PositionStack position;
    private final int base;
    private Object[] values;
    private JsonNode empty;
    private JsonNode overflow;

    RowBuilder(TableSchema table, RowBuilder parent, int index, String rowPath, PositionStack position) {
        this.table = table;
        this.position = position;
        this.base = position.size();
        this.parent = parent;
        this.index = index;
        this.rowPath = rowPath;
        this.values = new Object[table.columnCount()];
    }

    void set(int columnIndex, Object value) {
        if (columnIndex >= values.length) {
            values = Arrays.copyOf(values, Math.max(columnIndex + 1, values.length * 2));
        }
        values[columnIndex] = value;
    }

    void enter(String propertyName) {
        position.push(propertyName);
    }

    void exit() {
        position.pop();
    }

    /** The property names from the row to where the walk is. */
    List<String> position() {
        return position.copyFrom(base);
    }

    /** Records an explicit null, {@code {}} or {@code []}, which no column can tell from a missing property. */
    void markEmpty(JsonNode value) {
        empty = placeAtPosition(empty, value);
    }

    void overflow(JsonNode value) {
        overflow = placeAtPosition(overflow, value);
    }

    /** Where the walk is, from the document's root: {@code /items/3/price}. */
    JsonPointer pointer() {
        JsonPointer pointer = rowPointer();
        for (int step = base; step < position.size(); step++) {
            pointer = pointer.appendProperty(position.get(step));
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

    private JsonNode placeAtPosition(JsonNode partial, JsonNode value) {
        if (position.size() == base) {
            return value;
        }
        ObjectNode root = partial instanceof ObjectNode object ? object : JsonNodeFactory.instance.objectNode();
        ObjectNode node = root;
        for (int step = base; step < position.size() - 1; step++) {
            node = node.withObjectProperty(position.get(step));
        }
        node.set(position.get(position.size() - 1), value);
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
        return new Row(table, values);
    }
}
