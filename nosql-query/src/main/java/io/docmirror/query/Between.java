package io.docmirror.query;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.BooleanNode;

import java.util.List;

/** {@code x BETWEEN low AND high}: {@code low <= x AND x <= high}, with the comparisons' rules on types. */
record Between(Expression value, Expression low, Expression high, boolean negated) implements Expression {
    @Override
    public JsonNode compute(Scope scope) {
        JsonNode actual = value.evaluate(scope);
        JsonNode atLeast = BinaryOperation.compared(low.evaluate(scope), actual, false, result -> result <= 0);
        JsonNode atMost = BinaryOperation.compared(actual, high.evaluate(scope), false, result -> result <= 0);
        JsonNode within = BinaryOperation.and(atLeast, atMost);
        return within == null || !negated ? within : BooleanNode.valueOf(!within.booleanValue());
    }

    @Override
    public List<Expression> operands() {
        return List.of(value, low, high);
    }
}
