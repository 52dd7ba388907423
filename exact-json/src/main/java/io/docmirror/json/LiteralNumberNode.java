package io.docmirror.json;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.io.NumberInput;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.node.NumericNode;

import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Objects;

/**
 * A JSON number kept as the text it was written with, for the numbers Jackson's own nodes cannot hold exactly or
 * cheaply: a negative zero ({@code -0}, {@code -0.0}: a long or a BigDecimal drops the sign), numbers of more than a
 * thousand digits and numbers whose exponent no BigDecimal holds ({@code 1e-2147483648}); and, where a tree keeps
 * every number's spelling ({@link NumberFidelity#SPELLING}), the numbers a BigDecimal would write back differently:
 * {@code 1e2} ({@code 1E+2}), {@code 0.0000001} ({@code 1E-7}). It writes exactly that text; its value is parsed only
 * when someone asks for it.
 *
 * <p>Integers are those written without a fraction or an exponent, as in JSON: {@code -0} is an integer,
 * {@code 1e2} is not.
 */
public final class LiteralNumberNode extends NumericNode {
    private static final long serialVersionUID = 1L;

    private final String text;
    private final boolean integral;

    /**
     * @param text a JSON number (RFC 8259)
     * @throws IllegalArgumentException when the text is not one
     */
    public LiteralNumberNode(String text) {
        this(checked(text), isIntegral(text));
    }

    private LiteralNumberNode(String text, boolean integral) {
        this.text = text;
        this.integral = integral;
    }

    /** For text known to be a JSON number (a parser has read it, or {@link NumberSpelling#of} has checked it). */
    static LiteralNumberNode ofParsed(String text) {
        return new LiteralNumberNode(text, isIntegral(text));
    }

    private static String checked(String text) {
        NumberSpelling.of(Objects.requireNonNull(text, "text is null"));
        return text;
    }

    private static boolean isIntegral(String text) {
        return text.indexOf('.') < 0 && text.indexOf('e') < 0 && text.indexOf('E') < 0;
    }

    @Override
    public JsonToken asToken() {
        return integral ? JsonToken.VALUE_NUMBER_INT : JsonToken.VALUE_NUMBER_FLOAT;
    }

    /**
     * As Jackson reads JSON with exact decimals ({@code USE_BIG_DECIMAL_FOR_FLOATS}): integers by the range they
     * need, everything else as a BigDecimal.
     */
    @Override
    public JsonParser.NumberType numberType() {
        if (!integral) {
            return JsonParser.NumberType.BIG_DECIMAL;
        }
        int digits = text.length() - (text.charAt(0) == '-' ? 1 : 0);
        if (digits > 19 || digits == 19 && bigIntegerValue().bitLength() >= Long.SIZE) {
            return JsonParser.NumberType.BIG_INTEGER;
        }
        long value = Long.parseLong(text);
        return value == (int) value ? JsonParser.NumberType.INT : JsonParser.NumberType.LONG;
    }

    @Override
    public boolean isIntegralNumber() {
        return integral;
    }

    @Override
    public boolean isFloatingPointNumber() {
        return !integral;
    }

    @Override
    public boolean isInt() {
        return numberType() == JsonParser.NumberType.INT;
    }

    @Override
    public boolean isLong() {
        return numberType() == JsonParser.NumberType.LONG;
    }

    @Override
    public boolean isBigInteger() {
        return numberType() == JsonParser.NumberType.BIG_INTEGER;
    }

    @Override
    public boolean isBigDecimal() {
        return !integral;
    }

    /**
     * The number with this text as its {@link Object#toString()}: a parser over a tree ({@link #traverse()}) reports
     * a number's text as the string of its number value, and an Integer or BigDecimal would respell {@code -0.0}.
     */
    @Override
    public Number numberValue() {
        return new Spelled(this);
    }

    @Override
    public int intValue() {
        return integral ? (int) longValue() : decimalValue().intValue();
    }

    @Override
    public long longValue() {
        return integral ? bigIntegerValue().longValue() : decimalValue().longValue();
    }

    /** The nearest double: {@code -0.0} for a negative zero, an infinity beyond a double's range. */
    @Override
    public double doubleValue() {
        return Double.parseDouble(text);
    }

    /**
     * @throws NumberFormatException when no BigDecimal holds the number (its scale would be beyond an int)
     */
    @Override
    public BigDecimal decimalValue() {
        return NumberInput.parseBigDecimal(text, true);
    }

    @Override
    public BigInteger bigIntegerValue() {
        return integral ? NumberInput.parseBigInteger(text, true) : decimalValue().toBigInteger();
    }

    @Override
    public boolean canConvertToInt() {
        return fitsBetween(Integer.MIN_VALUE, Integer.MAX_VALUE);
    }

    @Override
    public boolean canConvertToLong() {
        return fitsBetween(Long.MIN_VALUE, Long.MAX_VALUE);
    }

    /** Whether the number's integer part lies in the range; the double answers cheaply unless it is near an end. */
    private boolean fitsBetween(long min, long max) {
        double approximate = doubleValue();
        if (approximate > min / 2 && approximate < max / 2) {
            return true;
        }
        if (approximate < min * 2.0 || approximate > max * 2.0) {
            return false;
        }
        BigInteger whole = bigIntegerValue();
        return whole.compareTo(BigInteger.valueOf(min)) >= 0 && whole.compareTo(BigInteger.valueOf(max)) <= 0;
    }

    @Override
    public String asText() {
        return text;
    }

    @Override
    public void serialize(JsonGenerator generator, SerializerProvider provider) throws IOException {
        generator.writeNumber(text);
    }

    /** Equal to another literal number of the same text: {@code 1.0} and {@code 1.00} are spelled apart. */
    @Override
    public boolean equals(Object other) {
        return other instanceof LiteralNumberNode literal && literal.text.equals(text);
    }

    @Override
    public int hashCode() {
        return text.hashCode();
    }

    /** A number that spells itself as its node's text; its values are the node's. */
    private static final class Spelled extends Number {
        private static final long serialVersionUID = 1L;

        private final LiteralNumberNode node;

        Spelled(LiteralNumberNode node) {
            this.node = node;
        }

        @Override
        public int intValue() {
            return node.intValue();
        }

        @Override
        public long longValue() {
            return node.longValue();
        }

        @Override
        public float floatValue() {
            return (float) node.doubleValue();
        }

        @Override
        public double doubleValue() {
            return node.doubleValue();
        }

        @Override
        public String toString() {
            return node.text;
        }
    }
}
