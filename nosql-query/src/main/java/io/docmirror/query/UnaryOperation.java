package io.docmirror.query;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.BooleanNode;

import java.util.List;

/** {@code -x}, {@code +x} on a number and {@code NOT x} on a boolean; undefined on any other value. */
record UnaryOperation(Operator operator, Expression operand) implements Expression {
    enum Operator {
        NEGATE, PLUS, NOT
    }

    @Override
    public JsonNode compute(Scope scope) {
        JsonNode value = operand.evaluate(scope);
        if (value == null) {
            return null;
        }
        return switch (operator) {
            case NEGATE -> value.isNumber() ? DecimalArithmetic.node(DecimalArithmetic.valueOf(value).negate()) : null;
            case PLUS -> value.isNumber() ? value : null;
            case NOT -> value.isBoolean() ? BooleanNode.valueOf(!value.booleanValue()) : null;
        };
    }

    @Override
    public List<Expression> operands() {
        return List.of(operand);
    }
}
