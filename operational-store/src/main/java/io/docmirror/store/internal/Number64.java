package io.docmirror.store.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.DoubleNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.LongNode;
import io.docmirror.json.LiteralNumberNode;

/**
 * A number as Cosmos DB's patch {@code incr} computes with it (its "Number64"): a 64-bit integer for a JSON integer
 * within a long's range, a double for every other number. The sum of two integers is an integer, refused when it
 * overflows; any other sum is a double, refused when it is not finite. A number that neither holds (beyond a double's
 * range, or so close to zero that a double would make it 0) is refused rather than rounded to infinity or zero.
 * Converting costs no more than parsing a double: no exact decimal of the number is ever made.
 */
sealed interface Number64 {

    /**
     * @throws IllegalArgumentException naming the number and the rule when neither a long nor a double holds it
     */
    static Number64 of(JsonNode number) {
        String text = number.asText();
        if (number.isIntegralNumber() && number.canConvertToLong()) {
            long value = number.longValue();
            return new Int64(value, value == 0 && text.startsWith("-"));
        }
        double value = number.doubleValue();
        if (!Double.isFinite(value)) {
            throw new IllegalArgumentException(abbreviate(text) + " is beyond the range of a 64-bit integer and of "
                    + "a double");
        }
        if (value == 0 && hasNonZeroDigit(text)) {
            throw new IllegalArgumentException(abbreviate(text) + " is too close to zero for a double, which would "
                    + "make it 0");
        }
        return new Float64(value);
    }

    /**
     * @throws IllegalArgumentException naming both numbers and the rule when the sum overflows its type
     */
    Number64 plus(Number64 other);

    double doubleValue();

    /** The node that writes the number: the sum of an increment is written as its type spells it. */
    JsonNode toNode();

    /**
     * @param negativeZero written {@code -0}: a long has no negative zero, but the sum of two of them is {@code -0},
     *     as doubles add
     */
    record Int64(long value, boolean negativeZero) implements Number64 {
        @Override
        public Number64 plus(Number64 other) {
            if (!(other instanceof Int64 integer)) {
                return new Float64(doubleValue()).plus(other);
            }
            try {
                return new Int64(Math.addExact(value, integer.value), negativeZero && integer.negativeZero);
            } catch (ArithmeticException e) {
                throw new IllegalArgumentException("cannot increment " + value + " by " + integer.value
                        + ": the sum of two integers is a 64-bit integer, and this one overflows it", e);
            }
        }

        @Override
        public double doubleValue() {
            return negativeZero ? -0.0 : value;
        }

        @Override
        public JsonNode toNode() {
            if (negativeZero) {
                return new LiteralNumberNode("-0");
            }
            return value == (int) value ? IntNode.valueOf((int) value) : LongNode.valueOf(value);
        }
    }

    record Float64(double value) implements Number64 {
        @Override
        public Number64 plus(Number64 other) {
            double sum = value + other.doubleValue();
            if (!Double.isFinite(sum)) {
                throw new IllegalArgumentException("cannot increment " + value + " by " + other.doubleValue()
                        + ": the sum of a non-integer is a double, and this one is beyond a double's range");
            }
            return new Float64(sum);
        }

        @Override
        public double doubleValue() {
            return value;
        }

        @Override
        public JsonNode toNode() {
            return DoubleNode.valueOf(value);
        }
    }

    /** Whether a JSON number's digits before its exponent are not all zeros, that is whether its value is not 0. */
    private static boolean hasNonZeroDigit(String text) {
        for (int index = 0; index < text.length(); index++) {
            char c = text.charAt(index);
            if (c == 'e' || c == 'E') {
                return false;
            }
            if (c >= '1' && c <= '9') {
                return true;
            }
        }
        return false;
    }

    private static String abbreviate(String text) {
        return text.length() > 40 ? text.substring(0, 40) + "... (" + text.length() + " characters)" : text;
    }
}
