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
    /** How a conflict report names this place: {@code variant column code__varchar}. */
    final String description;
    /** The column's type now (the table's column list says the same; this saves the lookup per value). */
    ColumnType type;

    Slot(int columnIndex, ValueTag tag, NumberFacts facts, Column column) {
        this.columnIndex = columnIndex;
        this.tag = tag;
        this.facts = facts;
        this.description = "variant column " + column.name();
        this.type = column.type();
    }
}
