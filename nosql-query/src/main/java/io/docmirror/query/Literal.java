package io.docmirror.query;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.List;

/** A constant: a number, string, boolean, null, or undefined (a null value). */
record Literal(JsonNode value) implements Expression {
    @Override
    public JsonNode compute(Scope scope) {
        return value;
    }

    @Override
    public List<Expression> operands() {
        return List.of();
    }
}
