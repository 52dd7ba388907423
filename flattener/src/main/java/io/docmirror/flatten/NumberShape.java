package io.docmirror.flatten;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;

import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;

/**
 * What one JSON number needs to be held exactly: whether a long or a double holds it, and how many integer and
 * fraction digits a DECIMAL would need. Its natural type is the narrowest of BIGINT, DOUBLE and DECIMAL(38,s)
 * that holds it; a number none of them holds is kept as its literal text.
 *
 * <p>The walker reuses one shape for every scalar number ({@link #read(JsonParser)}); list elements get their own.
 *
 * <p>"A double holds it" means the shortest decimal spelling of the nearest double equals the number, so 0.1 is a
 * DOUBLE and 1.000000000000000005 is not.
 */
final class NumberShape {
    /** Every integer up to 2^53 is a double whose shortest spelling is the integer itself. */
    private static final long TWO_TO_53 = 1L << 53;
    /** Any decimal of at most 15 significant digits survives a trip through a double (DBL_DIG). */
    private static final int DOUBLE_SAFE_DIGITS = 15;

    boolean fitsLong;
    boolean exactInDouble;
    /** Digits left of the point, 0 for |x| < 1. */
    int integerDigits;
    /** Digits right of the point, 0 for integers. */
    int scale;
    /** The number itself: exactly one of these is set, the narrowest of the three the JSON spelled. */
    private long longValue;
    private BigInteger bigInteger;
    private BigDecimal decimal;

    static NumberShape of(JsonNode node) {
        return new NumberShape().read(node);
    }

    /** Makes this the shape of {@code node} and returns it. */
    NumberShape read(JsonNode node) {
        return switch (node.numberType()) {
            case INT, LONG -> readLong(node.longValue());
            case BIG_INTEGER -> readBigInteger(node.bigIntegerValue());
            case FLOAT, DOUBLE, BIG_DECIMAL -> readDecimal(node.decimalValue());
        };
    }

    /** Makes this the shape of the number the parser is on and returns it. */
    NumberShape read(JsonParser parser) throws IOException {
        if (parser.currentToken() == JsonToken.VALUE_NUMBER_FLOAT) {
            // Straight to the exact decimal: asking for the number type first would parse a double as well.
            return readDecimal(parser.getDecimalValue());
        }
        return parser.getNumberType() == JsonParser.NumberType.BIG_INTEGER
                ? readBigInteger(parser.getBigIntegerValue())
                : readLong(parser.getLongValue());
    }

    private NumberShape readLong(long value) {
        set(value, null, null);
        fitsLong = true;
        exactInDouble = isExactInDouble(value);
        integerDigits = digits(value);
        scale = 0;
        return this;
    }

    private NumberShape readBigInteger(BigInteger value) {
        set(0, value, null);
        double asDouble = value.doubleValue();
        fitsLong = value.bitLength() < 64;
        exactInDouble = !Double.isInfinite(asDouble)
                && BigDecimal.valueOf(asDouble).compareTo(new BigDecimal(value)) == 0;
        integerDigits = value.abs().toString().length();
        scale = 0;
        return this;
    }

    private NumberShape readDecimal(BigDecimal value) {
        set(0, null, value);
        fitsLong = false;
        exactInDouble = isExactInDouble(value);
        integerDigits = integerDigits(value);
        scale = Math.max(0, value.scale());
        return this;
    }

    private void set(long longValue, BigInteger bigInteger, BigDecimal decimal) {
        this.longValue = longValue;
        this.bigInteger = bigInteger;
        this.decimal = decimal;
    }

    boolean fitsDecimal() {
        return integerDigits + scale <= ColumnType.DECIMAL_PRECISION;
    }

    /** The narrowest exact type, or {@link ValueTag#NUMBER} (literal text) when none holds the number. */
    ValueTag naturalTag() {
        if (fitsLong) {
            return ValueTag.BIGINT;
        }
        if (exactInDouble) {
            return ValueTag.DOUBLE;
        }
        return fitsDecimal() ? ValueTag.DECIMAL : ValueTag.NUMBER;
    }

    ColumnType naturalType() {
        return switch (naturalTag()) {
            case BIGINT -> ColumnType.BIGINT;
            case DOUBLE -> ColumnType.DOUBLE;
            case DECIMAL -> ColumnType.decimal(scale);
            default -> ColumnType.VARCHAR;
        };
    }

    /** The value as a column of {@code type} holds it; the caller has checked that it holds it exactly. */
    Object valueAs(ColumnType type) {
        return switch (type.kind()) {
            case BIGINT -> bigInteger != null ? bigInteger.longValueExact() : longValue;
            case DOUBLE -> decimal != null ? decimal.doubleValue()
                    : bigInteger != null ? bigInteger.doubleValue()
                    : (double) longValue;
            case DECIMAL -> exactDecimal().setScale(type.scale());
            case VARCHAR -> literal();
            default -> throw new IllegalStateException("Not a number type: " + type);
        };
    }

    /** The number's exact decimal spelling. */
    String literal() {
        return bigInteger != null ? bigInteger.toString() : exactDecimal().toString();
    }

    /** The number as a JSON node, for JSON text and {@code _overflow}. */
    JsonNode toNode() {
        return decimal != null ? JsonText.nodes().numberNode(decimal)
                : bigInteger != null ? JsonText.nodes().numberNode(bigInteger)
                : JsonText.nodes().numberNode(longValue);
    }

    private BigDecimal exactDecimal() {
        return decimal != null ? decimal
                : bigInteger != null ? new BigDecimal(bigInteger)
                : BigDecimal.valueOf(longValue);
    }

    private static boolean isExactInDouble(long value) {
        if (value >= -TWO_TO_53 && value <= TWO_TO_53) {
            return true;
        }
        return BigDecimal.valueOf((double) value).compareTo(BigDecimal.valueOf(value)) == 0;
    }

    private static boolean isExactInDouble(BigDecimal value) {
        int exponent = value.precision() - value.scale() - 1;
        if (value.precision() <= DOUBLE_SAFE_DIGITS && exponent > -300 && exponent < 300) {
            return true;
        }
        double asDouble = value.doubleValue();
        return !Double.isInfinite(asDouble) && BigDecimal.valueOf(asDouble).compareTo(value) == 0;
    }

    private static int integerDigits(BigDecimal value) {
        return Math.max(0, value.precision() - value.scale());
    }

    private static int digits(long value) {
        if (value == Long.MIN_VALUE) {
            return 19;
        }
        long magnitude = Math.abs(value);
        int digits = 1;
        while (digits < POWERS_OF_TEN.length && magnitude >= POWERS_OF_TEN[digits]) {
            digits++;
        }
        return digits;
    }

    private static final long[] POWERS_OF_TEN = new long[19];

    static {
        POWERS_OF_TEN[0] = 1;
        for (int index = 1; index < POWERS_OF_TEN.length; index++) {
            POWERS_OF_TEN[index] = POWERS_OF_TEN[index - 1] * 10;
        }
    }
}
