package io.docmirror.query;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.TextNode;

import java.math.BigDecimal;
import java.util.List;
import java.util.function.BinaryOperator;
import java.util.function.IntPredicate;

/**
 * An operator between two values, with Cosmos DB's rules for undefined: arithmetic wants two numbers and {@code ||}
 * two strings; comparisons want two values of one type (see {@link JsonOrder}); AND and OR follow three-valued logic
 * ({@code false AND undefined} is false, {@code true OR undefined} is true, anything else with undefined or a value
 * that is not a boolean is undefined); {@code ??} gives the right side when the left is undefined.
 */
record BinaryOperation(Operator operator, Expression left, Expression right) implements Expression {
    enum Operator {
        ADD(DecimalArithmetic::add),
        SUBTRACT(DecimalArithmetic::subtract),
        MULTIPLY(DecimalArithmetic::multiply),
        DIVIDE(DecimalArithmetic::divide),
        REMAINDER(DecimalArithmetic::remainder),
        CONCATENATE(null),
        EQUAL(null),
        NOT_EQUAL(null),
        LESS(null),
        LESS_OR_EQUAL(null),
        GREATER(null),
        GREATER_OR_EQUAL(null),
        AND(null),
        OR(null),
        COALESCE(null);

        private final BinaryOperator<BigDecimal> arithmetic;

        Operator(BinaryOperator<BigDecimal> arithmetic) {
            this.arithmetic = arithmetic;
        }
    }

    @Override
    public JsonNode compute(Scope scope) {
        JsonNode leftValue = left.evaluate(scope);
        JsonNode rightValue = right.evaluate(scope);
        if (operator.arithmetic != null) {
            if (leftValue == null || rightValue == null || !leftValue.isNumber() || !rightValue.isNumber()) {
                return null;
            }
            BigDecimal result = operator.arithmetic.apply(DecimalArithmetic.valueOf(leftValue),
                    DecimalArithmetic.valueOf(rightValue));
            return result == null ? null : DecimalArithmetic.node(result);
        }
        return switch (operator) {
            case CONCATENATE -> isString(leftValue) && isString(rightValue)
                    ? TextNode.valueOf(leftValue.textValue() + rightValue.textValue()) : null;
            case EQUAL -> compared(leftValue, rightValue, true, result -> result == 0);
            case NOT_EQUAL -> compared(leftValue, rightValue, true, result -> result != 0);
            case LESS -> compared(leftValue, rightValue, false, result -> result < 0);
            case LESS_OR_EQUAL -> compared(leftValue, rightValue, false, result -> result <= 0);
            case GREATER -> compared(leftValue, rightValue, false, result -> result > 0);
            case GREATER_OR_EQUAL -> compared(leftValue, rightValue, false, result -> result >= 0);
            case AND -> and(leftValue, rightValue);
            case OR -> or(leftValue, rightValue);
            case COALESCE -> leftValue != null ? leftValue : rightValue;
            default -> throw new AssertionError("arithmetic operator handled above: " + operator);
        };
    }

    @Override
    public List<Expression> operands() {
        return List.of(left, right);
    }

    static JsonNode and(JsonNode left, JsonNode right) {
        if (isFalse(left) || isFalse(right)) {
            return BooleanNode.FALSE;
        }
        return isTrue(left) && isTrue(right) ? BooleanNode.TRUE : null;
    }

    static JsonNode or(JsonNode left, JsonNode right) {
        if (isTrue(left) || isTrue(right)) {
            return BooleanNode.TRUE;
        }
        return isFalse(left) && isFalse(right) ? BooleanNode.FALSE : null;
    }

    static JsonNode compared(JsonNode left, JsonNode right, boolean equalityOnly,
            IntPredicate holds) {
        Integer result = JsonOrder.compareForOperator(left, right, equalityOnly);
        return result == null ? null : BooleanNode.valueOf(holds.test(result));
    }

    static boolean isTrue(JsonNode value) {
        return value != null && value.isBoolean() && value.booleanValue();
    }

    private static boolean isFalse(JsonNode value) {
        return value != null && value.isBoolean() && !value.booleanValue();
    }

    private static boolean isString(JsonNode value) {
        return value != null && value.isTextual();
    }
}
