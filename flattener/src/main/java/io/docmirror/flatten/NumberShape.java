package io.docmirror.flatten;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import io.docmirror.json.LiteralNumberNode;
import io.docmirror.json.NumberSpelling;

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
 *
 * <p>Two kinds of number are held as their text before anything parses them ({@link NumberSpelling}): a negative
 * zero ({@code -0}, {@code -0.0}), which only a double keeps, so it is a DOUBLE and never a BIGINT or DECIMAL; and a
 * number of more than {@value NumberSpelling#MAX_PARSED_DIGITS} significant digits or with an exponent no BigDecimal
 * holds ({@code 1e-2147483648}), which is its literal text as written. Every other number is parsed once, and what
 * it needs is read off its precision and scale, so that even {@code 1e-10000000} costs no arithmetic.
 */
final class NumberShape {
    /** Every integer up to 2^53 is a double whose shortest spelling is the integer itself. */
    private static final long TWO_TO_53 = 1L << 53;
    /** Any decimal of at most 15 significant digits survives a trip through a double (DBL_DIG). */
    private static final int DOUBLE_SAFE_DIGITS = 15;

    boolean fitsLong;
    boolean exactInDouble;
    /** Digits left of the point, 0 for |x| < 1 (at most {@link Integer#MAX_VALUE}: {@code 1e2147483647} has more). */
    int integerDigits;
    /** Digits right of the point, 0 for integers. */
    int scale;
    private boolean fitsDecimal;
    /**
     * The number itself: exactly one of these is set. A parsed number has the narrowest of the first three the JSON
     * spelled; a negative zero or a number kept as text has its spelling.
     */
    private long longValue;
    private BigInteger bigInteger;
    private BigDecimal decimal;
    private String spelling;
    private boolean negativeZero;

    static NumberShape of(JsonNode node) {
        return new NumberShape().read(node);
    }

    /** Makes this the shape of {@code node} and returns it. */
    NumberShape read(JsonNode node) {
        if (node instanceof LiteralNumberNode) {
            return readSpelled(node.asText());
        }
        return switch (node.numberType()) {
            case INT, LONG -> readLong(node.longValue());
            case BIG_INTEGER -> readBigInteger(node.bigIntegerValue());
            // Only the double itself has the sign of a negative zero, not its BigDecimal.
            case FLOAT, DOUBLE -> isNegativeZero(node.doubleValue())
                    ? readNegativeZero(node.asText())
                    : readDecimal(node.decimalValue());
            case BIG_DECIMAL -> readDecimal(node.decimalValue());
        };
    }

    /** Makes this the shape of the number the parser is on and returns it. */
    NumberShape read(JsonParser parser) throws IOException {
        char[] chars = parser.getTextCharacters();
        int offset = parser.getTextOffset();
        int length = parser.getTextLength();
        return switch (NumberSpelling.ofParsed(chars, offset, length)) {
            case NEGATIVE_ZERO -> readNegativeZero(new String(chars, offset, length));
            case TEXT_ONLY -> readText(new String(chars, offset, length));
            // Straight to the exact decimal: asking for the number type first would parse a double as well.
            case INTEGER, DECIMAL -> parser.currentToken() == JsonToken.VALUE_NUMBER_FLOAT
                    ? readDecimal(new BigDecimal(chars, offset, length))
                    : parser.getNumberType() == JsonParser.NumberType.BIG_INTEGER
                            ? readBigInteger(parser.getBigIntegerValue())
                            : readLong(parser.getLongValue());
        };
    }

    /** A number known only by its text. */
    private NumberShape readSpelled(String text) {
        return switch (NumberSpelling.of(text)) {
            case NEGATIVE_ZERO -> readNegativeZero(text);
            case TEXT_ONLY -> readText(text);
            case INTEGER -> readBigIntegerOrLong(new BigInteger(text));
            case DECIMAL -> readDecimal(new BigDecimal(text));
        };
    }

    private NumberShape readBigIntegerOrLong(BigInteger value) {
        return value.bitLength() < Long.SIZE ? readLong(value.longValue()) : readBigInteger(value);
    }

    private NumberShape readLong(long value) {
        set(value, null, null, null);
        fitsLong = true;
        exactInDouble = isExactInDouble(value);
        integerDigits = digits(value);
        scale = 0;
        fitsDecimal = integerDigits <= ColumnType.DECIMAL_PRECISION;
        return this;
    }

    private NumberShape readBigInteger(BigInteger value) {
        set(0, value, null, null);
        double asDouble = value.doubleValue();
        fitsLong = value.bitLength() < 64;
        exactInDouble = !Double.isInfinite(asDouble)
                && BigDecimal.valueOf(asDouble).compareTo(new BigDecimal(value)) == 0;
        integerDigits = value.abs().toString().length();
        scale = 0;
        fitsDecimal = integerDigits <= ColumnType.DECIMAL_PRECISION;
        return this;
    }

    private NumberShape readDecimal(BigDecimal value) {
        set(0, null, value, null);
        fitsLong = false;
        exactInDouble = isExactInDouble(value);
        integerDigits = integerDigits(value);
        scale = Math.max(0, value.scale());
        fitsDecimal = (long) integerDigits + scale <= ColumnType.DECIMAL_PRECISION;
        return this;
    }

    /**
     * A zero with a minus sign is the double -0.0, whatever its spelling ({@code -0} included): a long or a DECIMAL
     * would make it 0, so it fits neither, and a column it joins is DOUBLE or it goes to a variant.
     */
    private NumberShape readNegativeZero(String text) {
        set(0, null, null, text);
        negativeZero = true;
        fitsLong = false;
        exactInDouble = true;
        integerDigits = 1;
        scale = 0;
        fitsDecimal = false;
        return this;
    }

    /** A number only its text holds ({@link NumberSpelling#TEXT_ONLY}): it fits no numeric type, whatever it is. */
    private NumberShape readText(String text) {
        set(0, null, null, text);
        fitsLong = false;
        exactInDouble = false;
        integerDigits = 0;
        scale = 0;
        fitsDecimal = false;
        return this;
    }

    private void set(long longValue, BigInteger bigInteger, BigDecimal decimal, String spelling) {
        this.longValue = longValue;
        this.bigInteger = bigInteger;
        this.decimal = decimal;
        this.spelling = spelling;
        this.negativeZero = false;
    }

    boolean fitsDecimal() {
        return fitsDecimal;
    }

    /** The narrowest exact type, or {@link ValueTag#NUMBER} (literal text) when none holds the number. */
    ValueTag naturalTag() {
        if (fitsLong) {
            return ValueTag.BIGINT;
        }
        if (exactInDouble) {
            return ValueTag.DOUBLE;
        }
        return fitsDecimal ? ValueTag.DECIMAL : ValueTag.NUMBER;
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
        if (type.kind() == ColumnType.Kind.VARCHAR) {
            return literal();
        }
        if (negativeZero && type.kind() == ColumnType.Kind.DOUBLE) {
            return -0.0d;
        }
        if (spelling != null) {
            throw new IllegalStateException("The number " + abbreviate(spelling) + " has no exact " + type.sql()
                    + " value");
        }
        return switch (type.kind()) {
            case BIGINT -> bigInteger != null ? bigInteger.longValueExact() : longValue;
            case DOUBLE -> decimal != null ? decimal.doubleValue()
                    : bigInteger != null ? bigInteger.doubleValue()
                    : (double) longValue;
            case DECIMAL -> exactDecimal().setScale(type.scale());
            default -> throw new IllegalStateException("Not a number type: " + type);
        };
    }

    /**
     * The number's exact decimal spelling: as written for a negative zero or a number kept as text, else as its
     * BigInteger or BigDecimal spells it ({@code 1E+400}).
     */
    String literal() {
        return spelling != null ? spelling : bigInteger != null ? bigInteger.toString() : exactDecimal().toString();
    }

    /** The number as a JSON node, for JSON text and {@code _overflow}. */
    JsonNode toNode() {
        return spelling != null ? new LiteralNumberNode(spelling)
                : decimal != null ? JsonText.nodes().numberNode(decimal)
                : bigInteger != null ? JsonText.nodes().numberNode(bigInteger)
                : JsonText.nodes().numberNode(longValue);
    }

    private BigDecimal exactDecimal() {
        return decimal != null ? decimal
                : bigInteger != null ? new BigDecimal(bigInteger)
                : BigDecimal.valueOf(longValue);
    }

    private static boolean isNegativeZero(double value) {
        return Double.doubleToRawLongBits(value) == Double.doubleToRawLongBits(-0.0d);
    }

    private static String abbreviate(String text) {
        return text.length() > 40 ? text.substring(0, 40) + "..." : text;
    }

    private static boolean isExactInDouble(long value) {
        if (value >= -TWO_TO_53 && value <= TWO_TO_53) {
            return true;
        }
        return BigDecimal.valueOf((double) value).compareTo(BigDecimal.valueOf(value)) == 0;
    }

    private static boolean isExactInDouble(BigDecimal value) {
        // As a long: the scale of 1e2147483647 is -2147483647.
        long exponent = (long) value.precision() - value.scale() - 1;
        if (value.precision() <= DOUBLE_SAFE_DIGITS && exponent > -300 && exponent < 300) {
            return true;
        }
        double asDouble = value.doubleValue();
        return !Double.isInfinite(asDouble) && BigDecimal.valueOf(asDouble).compareTo(value) == 0;
    }

    private static int integerDigits(BigDecimal value) {
        return (int) Math.min(Integer.MAX_VALUE, Math.max(0, (long) value.precision() - value.scale()));
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
