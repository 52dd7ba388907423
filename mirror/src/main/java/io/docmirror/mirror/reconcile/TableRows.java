package io.docmirror.mirror.reconcile;

import io.docmirror.flatten.Row;
import io.docmirror.flatten.TableSchema;

import java.sql.Array;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

import static io.docmirror.layout.TableView.identifier;

/**
 * The rows of one flattened table that a query reads, one at a time, in the order the query gives them: its columns
 * read by name in the schema's order, each value as the flattener's rows hold it.
 */
final class TableRows implements AutoCloseable {
    private final TableSchema table;
    private final Statement statement;
    private final ResultSet result;
    private Row row;

    private TableRows(TableSchema table, Statement statement, ResultSet result) {
        this.table = table;
        this.statement = statement;
        this.result = result;
    }

    /**
     * The rows of {@code table} read from {@code relation} (a view or a table of {@code connection}, by its quoted
     * name) that {@code condition} selects (empty: all).
     */
    static TableRows select(Connection connection, TableSchema table, String relation, String condition)
            throws SQLException {
        String columns = String.join(", ", table.columns().stream().map(column -> identifier(column.name()))
                .toList());
        Statement statement = connection.createStatement();
        try {
            return new TableRows(table, statement, statement.executeQuery("SELECT " + columns + " FROM " + relation
                    + condition));
        } catch (SQLException e) {
            statement.close();
            throw e;
        }
    }

    /** Moves to the next row: false when there is none. */
    boolean next() throws SQLException {
        if (!result.next()) {
            row = null;
            return false;
        }
        int count = table.columnCount();
        Object[] values = new Object[count];
        for (int column = 0; column < count; column++) {
            values[column] = rowValue(result.getObject(column + 1));
        }
        row = Row.of(table, values);
        return true;
    }

    /** The row {@link #next()} moved to; null before the first and after the last. */
    Row row() {
        return row;
    }

    /** A value as DuckDB's driver gives it, as the flattener's rows hold it. */
    private static Object rowValue(Object value) throws SQLException {
        if (value instanceof Array array) {
            List<Object> elements = new ArrayList<>();
            for (Object element : (Object[]) array.getArray()) {
                elements.add(rowValue(element));
            }
            return elements;
        }
        if (value instanceof Timestamp timestamp) {
            return timestamp.toLocalDateTime().toInstant(ZoneOffset.UTC);
        }
        if (value instanceof LocalDateTime timestamp) {
            return timestamp.toInstant(ZoneOffset.UTC);
        }
        return value;
    }

    @Override
    public void close() throws SQLException {
        try (statement) {
            result.close();
        }
    }
}
