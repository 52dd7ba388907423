package io.docmirror.query;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.List;
import java.util.Objects;

/** A parameter ({@code @name}) with the value the request supplied for it. */
record ParameterReference(String name, JsonNode value) implements Expression {
    ParameterReference {
        Objects.requireNonNull(name, "name is null");
        Objects.requireNonNull(value, "value is null");
    }

    @Override
    public JsonNode compute(Scope scope) {
        return value;
    }

    @Override
    public List<Expression> operands() {
        return List.of();
    }
}
