package io.docmirror.query;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * ORDER BY's order of rows: each sort item in turn, in {@link JsonOrder}, reversed where DESC; rows whose values tie
 * in the order of their positions, whatever the direction. Without sort items, the order of the positions alone.
 */
final class SortOrder implements Comparator<SortKey> {
    private final List<SortItem> items;

    SortOrder(List<SortItem> items) {
        this.items = List.copyOf(items);
    }

    /** How many values a key of this order holds. */
    int size() {
        return items.size();
    }

    SortKey keyOf(Row row, RowPosition position) {
        List<JsonNode> values = new ArrayList<>(items.size());
        for (SortItem item : items) {
            values.add(item.expression().evaluate(row));
        }
        return new SortKey(values, position);
    }

    /** The same order over results, by the keys of their rows. */
    Comparator<SortedResult> ofResults() {
        return Comparator.comparing(SortedResult::key, this);
    }

    @Override
    public int compare(SortKey left, SortKey right) {
        for (int index = 0; index < items.size(); index++) {
            int result = JsonOrder.compare(left.values().get(index), right.values().get(index));
            if (result != 0) {
                return items.get(index).descending() ? -result : result;
            }
        }
        return left.position().compareTo(right.position());
    }
}
