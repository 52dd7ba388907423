package io.docmirror.json;

/**
 * What the text of a JSON number says about how it can be held exactly, found in one pass over the text without
 * parsing the number. An {@link #INTEGER} or a {@link #DECIMAL} parses cheaply into a long, BigInteger or BigDecimal;
 * the other two have no value those can carry (the sign of a zero), or none worth parsing, and are kept as their text
 * ({@link LiteralNumberNode}).
 */
public enum NumberSpelling {
    /** Digits with an optional minus sign, at most {@link #MAX_PARSED_DIGITS} of them, and not {@code -0}. */
    INTEGER,
    /** A fraction or an exponent, at most {@link #MAX_PARSED_DIGITS} significant digits, and a BigDecimal holds it. */
    DECIMAL,
    /** Zero with a minus sign ({@code -0}, {@code -0.0}, {@code -0e5}): a BigDecimal or a long would drop the sign. */
    NEGATIVE_ZERO,
    /**
     * More than {@link #MAX_PARSED_DIGITS} significant digits (parsing them costs more than keeping them does), or
     * an exponent that leaves the number without a BigDecimal ({@code 1e-2147483648}: its scale is beyond an int).
     */
    TEXT_ONLY;

    /** Jackson's own default limit on a number's length: numbers within it parse in microseconds. */
    public static final int MAX_PARSED_DIGITS = 1000;
    /**
     * The most characters after an {@code e} that need no closer look: an exponent of nine digits, with at most
     * {@link #MAX_PARSED_DIGITS} digits before it, always gives a BigDecimal scale within an int.
     */
    private static final int SHORT_EXPONENT = 9;

    /** Whether a long, BigInteger or BigDecimal holds the number exactly, and parses it cheaply. */
    public boolean isParseable() {
        return this == INTEGER || this == DECIMAL;
    }

    /**
     * @throws IllegalArgumentException when the text is not a JSON number (RFC 8259), such as {@code NaN} or
     *     {@code 01}
     */
    public static NumberSpelling of(String text) {
        return of(text.toCharArray(), 0, text.length());
    }

    /**
     * @throws IllegalArgumentException when the text is not a JSON number (RFC 8259), such as {@code NaN} or
     *     {@code 01}
     */
    public static NumberSpelling of(char[] chars, int offset, int length) {
        int end = offset + length;
        int index = offset;
        boolean negative = index < end && chars[index] == '-';
        if (negative) {
            index++;
        }
        int integerStart = index;
        int leadingZeros = 0;
        boolean significant = false;
        for (; index < end && isDigit(chars[index]); index++) {
            significant |= chars[index] != '0';
            leadingZeros += significant ? 0 : 1;
        }
        int integerDigits = index - integerStart;
        if (integerDigits == 0 || integerDigits > 1 && chars[integerStart] == '0') {
            throw notANumber(chars, offset, length);
        }
        int fractionDigits = 0;
        if (index < end && chars[index] == '.') {
            int fractionStart = ++index;
            for (; index < end && isDigit(chars[index]); index++) {
                significant |= chars[index] != '0';
                leadingZeros += significant ? 0 : 1;
            }
            fractionDigits = index - fractionStart;
            if (fractionDigits == 0) {
                throw notANumber(chars, offset, length);
            }
        }
        boolean hasExponent = index < end && (chars[index] == 'e' || chars[index] == 'E');
        long exponent = 0;
        boolean exponentFitsInt = true;
        if (hasExponent) {
            index++;
            boolean exponentNegative = index < end && chars[index] == '-';
            if (index < end && (chars[index] == '-' || chars[index] == '+')) {
                index++;
            }
            int exponentStart = index;
            while (index < end && chars[index] == '0') {
                index++;
            }
            int valueStart = index;
            for (; index < end && isDigit(chars[index]); index++) {
                // Eleven digits are past any int already; the rest only need checking as digits.
                if (index - valueStart < 11) {
                    exponent = exponent * 10 + (chars[index] - '0');
                }
            }
            if (index == exponentStart) {
                throw notANumber(chars, offset, length);
            }
            exponent = exponentNegative ? -exponent : exponent;
            exponentFitsInt = index - valueStart <= 10 && exponent == (int) exponent;
        }
        if (index != end) {
            throw notANumber(chars, offset, length);
        }
        int significantDigits = integerDigits + fractionDigits - leadingZeros;
        if (significantDigits == 0 && negative) {
            return NEGATIVE_ZERO;
        }
        if (significantDigits > MAX_PARSED_DIGITS) {
            return TEXT_ONLY;
        }
        if (fractionDigits == 0 && !hasExponent) {
            return INTEGER;
        }
        // BigDecimal's own rule: the exponent must fit an int, and so must the scale it makes.
        long scale = fractionDigits - exponent;
        return exponentFitsInt && scale == (int) scale ? DECIMAL : TEXT_ONLY;
    }

    /**
     * As {@link #of(char[], int, int)}, for text a JSON parser has already read as a number, which is not checked
     * again. Readers ask this of every number, and nearly every one is told at a glance, from its end: not too long,
     * not starting with {@code -0}, and with no exponent or a short one.
     */
    public static NumberSpelling ofParsed(char[] chars, int offset, int length) {
        boolean mayBeNegativeZero = length >= 2 && chars[offset] == '-' && chars[offset + 1] == '0';
        if (length > 0 && length <= MAX_PARSED_DIGITS && !mayBeNegativeZero) {
            int last = offset + length - 1;
            int index = last;
            while (index >= offset && isDigit(chars[index])) {
                index--;
            }
            if (index < offset || index == offset && chars[index] == '-') {
                return INTEGER;
            }
            if (chars[index] == '.') {
                return DECIMAL;
            }
            if (chars[index] == '-' || chars[index] == '+') {
                index--;
            }
            // On the exponent's e.
            if (last - index <= SHORT_EXPONENT) {
                return DECIMAL;
            }
        }
        return of(chars, offset, length);
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    private static IllegalArgumentException notANumber(char[] chars, int offset, int length) {
        String text = new String(chars, offset, Math.min(length, 40)) + (length > 40 ? "..." : "");
        return new IllegalArgumentException("'" + text + "' is not a JSON number");
    }
}
