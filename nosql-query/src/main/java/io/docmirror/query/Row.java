package io.docmirror.query;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.List;
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

    @Override
    public List<Row> rows() {
        return List.of(this);
    }
}
