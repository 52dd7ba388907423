package io.docmirror.query;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.List;

/** A FROM or JOIN alias: the document ({@code c}) or the element a JOIN iterates ({@code t}). */
record Variable(String name) implements Expression {
    @Override
    public JsonNode compute(Scope scope) {
        return scope.variable(name);
    }

    @Override
    public List<Expression> operands() {
        return List.of();
    }

    @Override
    public boolean isGroupInvariant(List<Expression> groupBy) {
        return groupBy.contains(this);
    }
}
