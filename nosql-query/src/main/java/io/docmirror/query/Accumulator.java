package io.docmirror.query;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;

import java.math.BigDecimal;

/**
 * The running state of one aggregate over one group, fed the values of its argument row by row (undefined ones are
 * skipped) and holding only what its result needs: a count, an exact sum, or the least or greatest value so far, as
 * {@link AggregateFunction} describes.
 */
final class Accumulator {
    private final AggregateFunction function;
    private long count;
    /** The exact sum for SUM and AVG; null once a value is not a number, which makes them undefined. */
    private BigDecimal sum = BigDecimal.ZERO;
    /** The least (MIN) or greatest (MAX) value so far, in {@link JsonOrder}; null when there is none yet. */
    private JsonNode extreme;
    /** Whether MIN or MAX met an array or an object, which makes them undefined. */
    private boolean metContainer;

    Accumulator(AggregateFunction function) {
        this.function = function;
    }

    /** Takes one row's value of the argument, null for undefined. */
    void add(JsonNode value) {
        if (value == null) {
            return;
        }
        count++;
        switch (function) {
            case SUM, AVG -> {
                if (sum != null) {
                    sum = value.isNumber() ? DecimalArithmetic.add(sum, DecimalArithmetic.valueOf(value)) : null;
                }
            }
            case MIN, MAX -> {
                if (value.isContainerNode()) {
                    metContainer = true;
                    extreme = null;
                } else if (!metContainer && (extreme == null || isBeyondExtreme(value))) {
                    extreme = value;
                }
            }
            case COUNT -> {
            }
        }
    }

    private boolean isBeyondExtreme(JsonNode value) {
        int comparison = JsonOrder.compare(value, extreme);
        return function == AggregateFunction.MIN ? comparison < 0 : comparison > 0;
    }

    /** The aggregate of the values so far, null for undefined. */
    JsonNode result() {
        return switch (function) {
            case COUNT -> JsonNodeFactory.instance.numberNode(count);
            case SUM -> sum == null ? null : DecimalArithmetic.node(sum);
            case AVG -> sum == null || count == 0 ? null
                    : DecimalArithmetic.node(DecimalArithmetic.divide(sum, BigDecimal.valueOf(count)));
            case MIN, MAX -> extreme;
        };
    }
}
