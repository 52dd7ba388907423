package io.docmirror.flatten;

/**
 * The place one kind of value of one path goes: a value column together with what the column must keep holding
 * exactly ({@link NumberFacts}, for columns that widen).
 */
final class Slot {
    final int columnIndex;
    final ValueTag tag;
    /** For NUMERIC, DECIMAL and NUMERIC_LIST columns; {@code null} otherwise. */
    final NumberFacts facts;

    Slot(int columnIndex, ValueTag tag, NumberFacts facts) {
        this.columnIndex = columnIndex;
        this.tag = tag;
        this.facts = facts;
    }
}
