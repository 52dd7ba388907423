package io.docmirror.query;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.List;

/**
 * An aggregate over the rows of a group, such as {@code COUNT(1)} or {@code AVG(c.price)}, with its argument's text
 * for the queries a plan sends each partition key range. The group computes it as rows stream in (an
 * {@link Accumulator} per call) and gives the result when the select list is evaluated on it.
 */
record AggregateCall(AggregateFunction function, Expression argument, String argumentText) implements Expression {
    @Override
    public JsonNode compute(Scope scope) {
        return scope.aggregate(this);
    }

    @Override
    public List<Expression> operands() {
        return List.of(argument);
    }

    @Override
    public boolean containsAggregate() {
        return true;
    }

    @Override
    public boolean isGroupInvariant(List<Expression> groupBy) {
        return true;
    }
}
