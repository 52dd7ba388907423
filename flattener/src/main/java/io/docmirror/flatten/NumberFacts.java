package io.docmirror.flatten;

/**
 * What every number a column has taken so far needs, so the column can widen without losing any of them:
 * BIGINT while all fit a long, then DOUBLE while a double holds all exactly, then DECIMAL(38,s) while all fit.
 * A column never narrows, and a number that fits none of these is refused (the caller then uses a variant). A
 * negative zero fits only a double, so a column that took one stays DOUBLE: widening it to DECIMAL would make it 0.
 */
final class NumberFacts {
    boolean allFitLong;
    boolean allExactInDouble;
    boolean allFitDecimal;
    int maxIntegerDigits;
    int maxScale;
    /** Set for a {@code __decimal} variant: it is DECIMAL from the start and only its scale may grow. */
    final boolean decimalOnly;

    NumberFacts(boolean decimalOnly) {
        this(decimalOnly, true, true, true, 0, 0);
    }

    NumberFacts(boolean decimalOnly, boolean allFitLong, boolean allExactInDouble, boolean allFitDecimal,
            int maxIntegerDigits, int maxScale) {
        this.decimalOnly = decimalOnly;
        this.allFitLong = allFitLong && !decimalOnly;
        this.allExactInDouble = allExactInDouble && !decimalOnly;
        this.allFitDecimal = allFitDecimal;
        this.maxIntegerDigits = maxIntegerDigits;
        this.maxScale = maxScale;
    }

    /** The type the column would need after taking {@code number}, or {@code null} if no type holds them all. */
    ColumnType typeWith(NumberShape number) {
        return narrowest(allFitLong && number.fitsLong, allExactInDouble && number.exactInDouble,
                allFitDecimal && number.fitsDecimal(), Math.max(maxIntegerDigits, number.integerDigits),
                Math.max(maxScale, number.scale));
    }

    /** The narrowest type that holds every number taken so far ({@code null} before the first). */
    ColumnType type() {
        return narrowest(allFitLong, allExactInDouble, allFitDecimal, maxIntegerDigits, maxScale);
    }

    /** Whether {@link #add} would leave these facts as they are. */
    boolean alreadyCover(NumberShape number) {
        return (number.fitsLong || !allFitLong) && (number.exactInDouble || !allExactInDouble)
                && (number.fitsDecimal() || !allFitDecimal) && number.integerDigits <= maxIntegerDigits
                && number.scale <= maxScale;
    }

    /** Whether {@link #addAll} would leave these facts as they are. */
    boolean alreadyCover(NumberFacts other) {
        return (other.allFitLong || !allFitLong) && (other.allExactInDouble || !allExactInDouble)
                && (other.allFitDecimal || !allFitDecimal) && other.maxIntegerDigits <= maxIntegerDigits
                && other.maxScale <= maxScale;
    }

    void add(NumberShape number) {
        allFitLong &= number.fitsLong;
        allExactInDouble &= number.exactInDouble;
        allFitDecimal &= number.fitsDecimal();
        maxIntegerDigits = Math.max(maxIntegerDigits, number.integerDigits);
        maxScale = Math.max(maxScale, number.scale);
    }

    /** Merges another set of facts, as {@link #add} would for each of their numbers. */
    void addAll(NumberFacts other) {
        allFitLong &= other.allFitLong;
        allExactInDouble &= other.allExactInDouble;
        allFitDecimal &= other.allFitDecimal;
        maxIntegerDigits = Math.max(maxIntegerDigits, other.maxIntegerDigits);
        maxScale = Math.max(maxScale, other.maxScale);
    }

    ColumnType typeWith(NumberFacts other) {
        return narrowest(allFitLong && other.allFitLong, allExactInDouble && other.allExactInDouble,
                allFitDecimal && other.allFitDecimal, Math.max(maxIntegerDigits, other.maxIntegerDigits),
                Math.max(maxScale, other.maxScale));
    }

    NumberFacts copy() {
        return new NumberFacts(decimalOnly, allFitLong, allExactInDouble, allFitDecimal, maxIntegerDigits, maxScale);
    }

    private static ColumnType narrowest(boolean fitLong, boolean exactInDouble, boolean fitDecimal, int integerDigits,
            int scale) {
        if (fitLong) {
            return ColumnType.BIGINT;
        }
        if (exactInDouble) {
            return ColumnType.DOUBLE;
        }
        if (fitDecimal && (long) integerDigits + scale <= ColumnType.DECIMAL_PRECISION) {
            return ColumnType.decimal(scale);
        }
        return null;
    }
}
