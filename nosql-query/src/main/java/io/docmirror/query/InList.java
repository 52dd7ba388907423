package io.docmirror.query;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.BooleanNode;

import java.util.ArrayList;
import java.util.List;

/**
 * {@code x IN (a, b, ...)}: true when x equals one of the values (numbers by value, values of another type never),
 * false otherwise, undefined when x is; NOT IN is its negation.
 */
record InList(Expression value, List<Expression> candidates, boolean negated) implements Expression {
    InList {
        candidates = List.copyOf(candidates);
    }

    @Override
    public JsonNode compute(Scope scope) {
        JsonNode actual = value.evaluate(scope);
        if (actual == null) {
            return null;
        }
        boolean found = false;
        for (Expression candidate : candidates) {
            JsonNode expected = candidate.evaluate(scope);
            if (expected != null && JsonOrder.equal(actual, expected)) {
                found = true;
                break;
            }
        }
        return BooleanNode.valueOf(found != negated);
    }

    @Override
    public List<Expression> operands() {
        List<Expression> operands = new ArrayList<>(candidates.size() + 1);
        operands.add(value);
        operands.addAll(candidates);
        return operands;
    }
}
