package io.docmirror.query;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.List;

/**
 * The rows that share a GROUP BY key (or all rows, for aggregates without GROUP BY). A non-aggregate expression of
 * the select list is one of the GROUP BY expressions, so it has one value in the group and is read from its first
 * row; an empty group (aggregates over no rows) has no variables.
 */
record Group(List<Row> rows) implements Scope {
    Group {
        rows = List.copyOf(rows);
    }

    @Override
    public JsonNode variable(String name) {
        return rows.isEmpty() ? null : rows.get(0).variable(name);
    }
}
