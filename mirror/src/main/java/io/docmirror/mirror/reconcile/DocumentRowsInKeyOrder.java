package io.docmirror.mirror.reconcile;

import io.docmirror.flatten.ContainerSchema;
import io.docmirror.flatten.Row;
import io.docmirror.flatten.TableSchema;
import io.docmirror.flatten.SystemColumn;
import org.duckdb.DuckDBConnection;

import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static io.docmirror.flatten.SystemColumn.DOCUMENT_ID;
import static io.docmirror.flatten.SystemColumn.ID;
import static io.docmirror.flatten.SystemColumn.PARTITION_KEY;
import static io.docmirror.layout.TableView.identifier;

/**
 * The rows of every current document, one document at a time, in the order of their keys (partition key, then id,
 * as DuckDB orders text): each table's rows are first copied into the database in that order, then all the copies
 * are read side by side, so that only one document's rows are held at a time however many documents there are.
 *
 * <p>A document's rows come as {@link io.docmirror.flatten.DocumentRebuilder} needs them: its root row first, then
 * the rows of each child table in the schema's order, where a nested table comes after the table of its parent
 * rows. Child rows whose document has no root row are passed over, as they are not part of any document.
 */
final class DocumentRowsInKeyOrder implements AutoCloseable {
    private final DuckDBConnection connection;
    private final List<String> copies = new ArrayList<>();
    private final List<DuckDBConnection> readers = new ArrayList<>();
    private TableRows roots;
    /** The rows of each child table, and whether each has a current row left. */
    private final List<TableRows> children = new ArrayList<>();
    private final List<Boolean> childrenLeft = new ArrayList<>();
    private List<Row> rows;

    private DocumentRowsInKeyOrder(DuckDBConnection connection) {
        this.connection = connection;
    }

    /**
     * The documents of the tables of {@code schema}, each read from the view of its name in the database of
     * {@code connection}.
     */
    static DocumentRowsInKeyOrder open(DuckDBConnection connection, ContainerSchema schema) throws SQLException {
        DocumentRowsInKeyOrder documents = new DocumentRowsInKeyOrder(connection);
        try {
            for (TableSchema table : schema.tables()) {
                documents.copyInKeyOrder(table);
            }
            for (TableSchema table : schema.tables()) {
                TableRows rows = documents.readCopy(table);
                if (table.isRoot()) {
                    documents.roots = rows;
                } else {
                    documents.children.add(rows);
                    documents.childrenLeft.add(rows.next());
                }
            }
        } catch (SQLException | RuntimeException e) {
            documents.closeAfter(e);
            throw e;
        }
        return documents;
    }

    private static String copyOf(TableSchema table) {
        return identifier(".in key order " + table.name());
    }

    /** Copies the table's rows into the database, sorted by key (DuckDB spills a sort beyond its memory). */
    private void copyInKeyOrder(TableSchema table) throws SQLException {
        String columns = String.join(", ", table.columns().stream().map(column -> identifier(column.name()))
                .toList());
        try (Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE " + copyOf(table) + " AS SELECT " + columns + " FROM "
                    + identifier(table.name()) + " ORDER BY " + PARTITION_KEY.columnName() + ", "
                    + SystemColumn.documentId(table.isRoot()).columnName());
        }
        copies.add(copyOf(table));
    }

    /**
     * Reads the table's copy in the order its rows were inserted (DuckDB preserves it), on a connection of its own:
     * results stream, and a connection streams one at a time.
     */
    private TableRows readCopy(TableSchema table) throws SQLException {
        DuckDBConnection reader = connection.duplicate();
        readers.add(reader);
        return TableRows.select(reader, table, copyOf(table), "");
    }

    /** Moves to the next document: false when there is none. */
    boolean next() throws SQLException {
        Row previous = rows == null ? null : rows.get(0);
        if (!roots.next()) {
            rows = null;
            return false;
        }
        Row root = roots.row();
        String partitionKey = (String) root.value(PARTITION_KEY.columnName());
        String id = (String) root.value(ID.columnName());
        if (previous != null && partitionKey.equals(previous.value(PARTITION_KEY.columnName())) && id.equals(previous.value(ID.columnName()))) {
            // The same document's root row again: it gets the same child rows.
            List<Row> again = new ArrayList<>(rows);
            again.set(0, root);
            rows = again;
            return true;
        }
        rows = new ArrayList<>();
        rows.add(root);
        for (int child = 0; child < children.size(); child++) {
            TableRows table = children.get(child);
            boolean left = childrenLeft.get(child);
            while (left && compare(table.row(), partitionKey, id) < 0) {
                left = table.next();
            }
            while (left && compare(table.row(), partitionKey, id) == 0) {
                rows.add(table.row());
                left = table.next();
            }
            childrenLeft.set(child, left);
        }
        return true;
    }

    /** The current document's rows, its root row first. */
    List<Row> rows() {
        return rows;
    }

    /** Compares a child row's document key with a root row's as DuckDB ordered them. */
    private static int compare(Row child, String partitionKey, String id) {
        int byPartitionKey = compareText((String) child.value(PARTITION_KEY.columnName()), partitionKey);
        return byPartitionKey != 0 ? byPartitionKey : compareText((String) child.value(DOCUMENT_ID.columnName()), id);
    }

    /** Compares two texts as DuckDB orders them: by their UTF-8 bytes, unsigned (by code point). */
    private static int compareText(String left, String right) {
        return Arrays.compareUnsigned(left.getBytes(StandardCharsets.UTF_8), right.getBytes(StandardCharsets.UTF_8));
    }

    /** Closes the readers and drops the copies, so that their disk is free for what the reconcile does next. */
    @Override
    public void close() throws SQLException {
        SQLException failure = null;
        List<AutoCloseable> opened = new ArrayList<>();
        if (roots != null) {
            opened.add(roots);
        }
        opened.addAll(children);
        opened.addAll(readers);
        for (AutoCloseable resource : opened) {
            try {
                resource.close();
            } catch (Exception e) {
                failure = add(failure, e);
            }
        }
        try (Statement statement = connection.createStatement()) {
            for (String copy : copies) {
                statement.execute("DROP TABLE " + copy);
            }
        } catch (SQLException e) {
            failure = add(failure, e);
        }
        if (failure != null) {
            throw failure;
        }
    }

    private void closeAfter(Exception cause) {
        try {
            close();
        } catch (SQLException e) {
            cause.addSuppressed(e);
        }
    }

    private static SQLException add(SQLException first, Exception next) {
        SQLException failure = first != null ? first : new SQLException("Cannot close the documents in key order");
        failure.addSuppressed(next);
        return failure;
    }
}
