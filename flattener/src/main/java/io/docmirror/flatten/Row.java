package io.docmirror.flatten;

import java.util.Arrays;

import static java.util.Objects.requireNonNull;

/**
 * One row of one table, its values in column order. A row made before a column was added has no value for it
 * ({@link #value} answers {@code null}).
 *
 * <p>Values are {@code Boolean}, {@code Long}, {@code Double}, {@code BigDecimal}, {@code String} (VARCHAR and JSON
 * text), {@code java.time.Instant} (TIMESTAMP) and {@code List} (LIST, elements of those types or null). A value is
 * exact in the type its column had when the row was made, and in every type the column widens to later, so a writer
 * converts it to the column's current type without loss.
 */
public final class Row {
    private final TableSchema table;
    private final Object[] values;

    Row(TableSchema table, Object[] values) {
        this.table = requireNonNull(table, "table is null");
        this.values = values;
    }

    /**
     * A row read back from where it was written (a mirror's files, say), to rebuild its document with
     * {@link DocumentRebuilder}: {@code values} in the table's column order, of the types listed above.
     */
    public static Row of(TableSchema table, Object[] values) {
        return new Row(table, values.clone());
    }

    public TableSchema table() {
        return table;
    }

    public Object value(int columnIndex) {
        return columnIndex < values.length ? values[columnIndex] : null;
    }

    /** The value of the named column, for tests and tools; writers use {@link #value(int)}. */
    public Object value(String columnName) {
        for (int index = 0; index < table.columnCount(); index++) {
            if (table.column(index).name().equals(columnName)) {
                return value(index);
            }
        }
        throw new IllegalArgumentException("Table " + table.name() + " has no column " + columnName);
    }

    /** The table's name and the row's values up to its last non-null one. */
    @Override
    public String toString() {
        int width = values.length;
        while (width > 0 && values[width - 1] == null) {
            width--;
        }
        return table.name() + Arrays.toString(Arrays.copyOf(values, width));
    }
}
