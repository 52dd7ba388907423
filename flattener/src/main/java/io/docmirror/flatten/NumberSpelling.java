package io.docmirror.flatten;

/**
 * What the text of a JSON number says about how it can be held exactly, found in one pass over the text without
 * parsing the number. Nearly every number is {@link #PARSEABLE} into a long, BigInteger or BigDecimal; the other two
 * are kept as their text (a {@link LiteralNumberNode} in a tree, a DOUBLE or the {@link ValueTag#NUMBER} tag in a
 * column: see {@link NumberShape}).
 *
 * <p>The store has a twin of this class, which draws the same line: the two modules share no code.
 */
enum NumberSpelling {
    /** At most {@link #MAX_PARSED_DIGITS} significant digits and an exponent a BigDecimal holds: the usual number. */
    PARSEABLE,
    /** Zero with a minus sign ({@code -0}, {@code -0.0}, {@code -0e5}): a BigDecimal or a long would drop the sign. */
    NEGATIVE_ZERO,
    /**
     * More than {@link #MAX_PARSED_DIGITS} significant digits (parsing them costs more than keeping them does), or
     * an exponent that leaves the number without a BigDecimal ({@code 1e-2147483648}: its scale is beyond an int).
     */
    TEXT_ONLY;

    /** Jackson's own default limit on a number's length: numbers within it parse in microseconds. */
    static final int MAX_PARSED_DIGITS = 1000;
    /**
     * The most characters after an {@code e} that need no closer look: an exponent of nine digits, with at most
     * {@link #MAX_PARSED_DIGITS} digits before it, always gives a BigDecimal scale within an int.
     */
    private static final int SHORT_EXPONENT = 9;

    static NumberSpelling of(String text) {
        return of(text.toCharArray(), 0, text.length());
    }

    /**
     * @throws IllegalArgumentException when the text is not a JSON number (RFC 8259), such as {@code 1e}, unless it
     *     looks parseable at a glance: the flattener only reads numbers that a JSON parser or a node spelled
     */
    static NumberSpelling of(char[] chars, int offset, int length) {
        // The walker asks this of every number, and nearly every one is parseable at a glance: not too long, not
        // starting with -0 and with no exponent or a short one.
        if (length <= MAX_PARSED_DIGITS && !(length >= 2 && chars[offset] == '-' && chars[offset + 1] == '0')
                && hasNoLongExponent(chars, offset, length)) {
            return PARSEABLE;
        }
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
        // BigDecimal's own rule: the exponent must fit an int, and so must the scale it makes.
        long scale = fractionDigits - exponent;
        return exponentFitsInt && scale == (int) scale ? PARSEABLE : TEXT_ONLY;
    }

    /** Whether the text has no exponent or one of at most {@link #SHORT_EXPONENT} characters, read from its end. */
    private static boolean hasNoLongExponent(char[] chars, int offset, int length) {
        if (length <= SHORT_EXPONENT + 2) {
            return true;
        }
        int last = offset + length - 1;
        int index = last;
        while (index >= offset && (isDigit(chars[index]) || chars[index] == '-' || chars[index] == '+')) {
            index--;
        }
        return index < offset || chars[index] != 'e' && chars[index] != 'E' || last - index <= SHORT_EXPONENT;
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    private static IllegalArgumentException notANumber(char[] chars, int offset, int length) {
        String text = new String(chars, offset, Math.min(length, 40)) + (length > 40 ? "..." : "");
        return new IllegalArgumentException("'" + text + "' is not a JSON number");
    }
}
