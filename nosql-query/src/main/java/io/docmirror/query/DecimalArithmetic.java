package io.docmirror.query;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.docmirror.json.LiteralNumberNode;

import java.math.BigDecimal;
import java.math.MathContext;

/**
 * The query engine's arithmetic: exact decimals where Cosmos DB computes in doubles, so that {@code 0.1 + 0.2} is
 * {@code 0.3} and {@code 9007199254740993 + 0} is still {@code 9007199254740993}. Addition, subtraction,
 * multiplication and remainder are exact; a quotient is exact when it terminates and otherwise carries 34
 * significant digits (IEEE 754 decimal128), the one place a computed value is not the whole truth, and still closer
 * to it than the double Cosmos DB gives.
 */
final class DecimalArithmetic {
    /** The precision of a quotient that does not terminate (1/3). */
    static final MathContext QUOTIENT = MathContext.DECIMAL128;
    /**
     * The most digits a sum, difference or remainder may need: {@code 1e999999999 + 1} is exact in a BigDecimal of a
     * billion digits, which a query must not make the server build.
     */
    static final long MAX_COMPUTED_DIGITS = 10_000;
    /** Integers up to this many digits are written as JSON integers; larger ones as their BigDecimal text (1E+400). */
    private static final int MAX_INTEGER_DIGITS = 1000;

    private DecimalArithmetic() {
    }

    /**
     * The exact value of a number node, whatever Jackson class holds it.
     *
     * @throws QueryException when no BigDecimal holds it: more than a thousand digits, an exponent beyond an int, or
     *     a double that is not finite
     */
    static BigDecimal valueOf(JsonNode number) {
        try {
            return number.decimalValue();
        } catch (NumberFormatException e) {
            String text = number.asText();
            throw new QueryException(QueryErrorCode.NUMBER_OUT_OF_RANGE, "Cannot compute with the number "
                    + (text.length() > 40 ? text.substring(0, 40) + "..." : text)
                    + ": it is beyond what the query engine holds exactly (a BigDecimal)", e);
        }
    }

    /** A node for a computed value: an integer node when it is whole, otherwise its exact decimal text. */
    static JsonNode node(BigDecimal value) {
        BigDecimal stripped = value.signum() == 0 ? BigDecimal.ZERO : value.stripTrailingZeros();
        if (stripped.scale() <= 0 && stripped.precision() - stripped.scale() <= MAX_INTEGER_DIGITS) {
            return JsonNodeFactory.instance.numberNode(stripped.toBigIntegerExact());
        }
        return new LiteralNumberNode(stripped.toString());
    }

    static BigDecimal add(BigDecimal left, BigDecimal right) {
        checkAligned(left, right, "add");
        return left.add(right);
    }

    static BigDecimal subtract(BigDecimal left, BigDecimal right) {
        checkAligned(left, right, "subtract");
        return left.subtract(right);
    }

    static BigDecimal multiply(BigDecimal left, BigDecimal right) {
        long scale = (long) left.scale() + right.scale();
        if (scale != (int) scale) {
            throw tooManyDigits("multiply", left, right);
        }
        return left.multiply(right);
    }

    /** The quotient, or null (undefined) for a division by zero, where Cosmos DB's double would be infinite. */
    static BigDecimal divide(BigDecimal dividend, BigDecimal divisor) {
        if (divisor.signum() == 0) {
            return null;
        }
        try {
            return dividend.divide(divisor);
        } catch (ArithmeticException nonTerminating) {
            return dividend.divide(divisor, QUOTIENT);
        }
    }

    /** The remainder with the dividend's sign, or null (undefined) for a remainder by zero. */
    static BigDecimal remainder(BigDecimal dividend, BigDecimal divisor) {
        if (divisor.signum() == 0) {
            return null;
        }
        checkAligned(dividend, divisor, "divide");
        long quotientDigits = integerDigits(dividend) - integerDigits(divisor);
        if (quotientDigits > MAX_COMPUTED_DIGITS) {
            throw tooManyDigits("divide", dividend, divisor);
        }
        return dividend.remainder(divisor);
    }

    /** Adding (or aligning for a remainder) needs the digits from the larger number's first to the smaller's last. */
    private static void checkAligned(BigDecimal left, BigDecimal right, String operation) {
        if (left.signum() == 0 || right.signum() == 0) {
            return;
        }
        long digits = Math.max(integerDigits(left), integerDigits(right)) + Math.max(left.scale(), right.scale());
        if (digits > MAX_COMPUTED_DIGITS) {
            throw tooManyDigits(operation, left, right);
        }
    }

    private static long integerDigits(BigDecimal value) {
        return (long) value.precision() - value.scale();
    }

    private static QueryException tooManyDigits(String operation, BigDecimal left, BigDecimal right) {
        return new QueryException(QueryErrorCode.NUMBER_OUT_OF_RANGE, "Cannot " + operation + " " + abbreviated(left)
                + " and " + abbreviated(right) + ": the exact result would need more than " + MAX_COMPUTED_DIGITS
                + " digits");
    }

    private static String abbreviated(BigDecimal value) {
        String text = value.toString();
        return text.length() > 40 ? text.substring(0, 40) + "..." : text;
    }
}
