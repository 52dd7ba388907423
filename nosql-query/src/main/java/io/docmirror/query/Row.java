package io.docmirror.query;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.Map;

/**
 * One row of a query's FROM clause: a document, or one combination of it with the elements its JOINs iterate, each
 * bound to its alias.
 */
record Row(Map<String, JsonNode> variables) implements Scope {
    Row {
        variables = Map.copyOf(variables);
    }

    @Override
    public JsonNode variable(String name) {
        return variables.get(name);
    }

    /** Never asked: the query's checks keep aggregates out of every clause evaluated on a row. */
    @Override
    public JsonNode aggregate(AggregateCall call) {
        throw new IllegalStateException("aggregate " + call.function() + " evaluated on a row, outside a group");
    }
}
