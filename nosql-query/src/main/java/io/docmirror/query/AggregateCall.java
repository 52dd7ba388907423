package io.docmirror.query;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;

import java.math.BigDecimal;
import java.util.List;

/**
 * An aggregate over the rows of a group, such as {@code COUNT(1)} or {@code AVG(c.price)}, with its argument's text
 * for the queries a plan sends each partition key range.
 */
record AggregateCall(AggregateFunction function, Expression argument, String argumentText) implements Expression {
    @Override
    public JsonNode evaluate(Scope scope) {
        long count = 0;
        BigDecimal sum = BigDecimal.ZERO;
        boolean allNumbers = true;
        boolean allPrimitives = true;
        JsonNode least = null;
        JsonNode greatest = null;
        for (Scope row : scope.rows()) {
            JsonNode value = argument.evaluate(row);
            if (value == null) {
                continue;
            }
            count++;
            switch (function) {
                case SUM, AVG -> {
                    allNumbers &= value.isNumber();
                    if (allNumbers) {
                        sum = DecimalArithmetic.add(sum, DecimalArithmetic.valueOf(value));
                    }
                }
                case MIN, MAX -> {
                    allPrimitives &= !value.isContainerNode();
                    if (allPrimitives && (least == null || JsonOrder.compare(value, least) < 0)) {
                        least = value;
                    }
                    if (allPrimitives && (greatest == null || JsonOrder.compare(value, greatest) > 0)) {
                        greatest = value;
                    }
                }
                default -> {
                }
            }
        }
        return switch (function) {
            case COUNT -> JsonNodeFactory.instance.numberNode(count);
            case SUM -> allNumbers ? DecimalArithmetic.node(sum) : null;
            case AVG -> allNumbers && count > 0
                    ? DecimalArithmetic.node(DecimalArithmetic.divide(sum, BigDecimal.valueOf(count))) : null;
            case MIN -> allPrimitives ? least : null;
            case MAX -> allPrimitives ? greatest : null;
        };
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
