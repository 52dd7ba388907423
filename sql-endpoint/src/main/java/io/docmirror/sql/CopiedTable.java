package io.docmirror.sql;

import io.docmirror.layout.FileDamage;
import io.docmirror.layout.TableView;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.Schema;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.types.Types;
import org.duckdb.DuckDBAppender;
import org.duckdb.DuckDBConnection;

import java.io.UncheckedIOException;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.LongConsumer;
import java.util.stream.Collectors;

import static io.docmirror.layout.TableView.identifier;
import static io.docmirror.layout.TableView.literal;

/**
 * One Iceberg table of the mirror as the {@link ServingCopy} holds it: a DuckDB table of the table's live rows, each
 * with the data file ({@code file_id}) and position ({@code pos}) it has in the Iceberg table, so that a deletion
 * vector deletes exactly its rows. Columns are named by Iceberg field id ({@code f<id>}), so that a renamed column
 * changes only the view over the table, and a column the table gains is added without a reload.
 *
 * <p>Bringing the copy to a snapshot of the table compares the data files it holds with the snapshot's: a file the
 * snapshot no longer has is deleted by its {@code file_id} (a compaction's inputs, an expired container's tables); a
 * new one is inserted whole, then its deletion vector applied; a file whose deletion vector changed gets the new
 * vector's positions deleted (deleting a row twice changes nothing, so the whole vector is applied, and no earlier
 * vector needs to be read). A table whose columns changed otherwise (a widened type, a column gone) is loaded again.
 */
final class CopiedTable {
    /** The DuckDB schema of the copied tables and of what the copy records about them. */
    static final String SCHEMA = "docmirror_copy";

    private final DuckDBConnection connection;
    private final String relation;

    private CopiedTable(DuckDBConnection connection, String relation) {
        this.connection = connection;
        this.relation = relation;
    }

    /** Creates the copy's own records in {@code connection}'s database, unless they are there. */
    static void createRecords(DuckDBConnection connection) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute("CREATE SCHEMA IF NOT EXISTS " + SCHEMA);
            // key: what the table is to the mirror (container and table name); columns: its signature.
            statement.execute("CREATE TABLE IF NOT EXISTS " + SCHEMA + ".tables (key VARCHAR NOT NULL, "
                    + "relation VARCHAR NOT NULL, columns VARCHAR NOT NULL)");
            // vector: the deletion vector last applied ("" for none).
            statement.execute("CREATE TABLE IF NOT EXISTS " + SCHEMA + ".files (relation VARCHAR NOT NULL, "
                    + "file_id BIGINT NOT NULL, path VARCHAR NOT NULL, vector VARCHAR NOT NULL)");
            statement.execute("CREATE TABLE IF NOT EXISTS " + SCHEMA + ".pending_deletes (file_id BIGINT NOT NULL, "
                    + "pos BIGINT NOT NULL)");
            statement.execute("CREATE SEQUENCE IF NOT EXISTS " + SCHEMA + ".ids");
        }
    }

    /**
     * Brings the copy of the table {@code key} names to {@code view}, in the connection's current transaction.
     *
     * @return the copied table, to build the user's view on ({@link #select})
     * @throws SQLException when a data file cannot be read (the message names it): the transaction must be rolled
     *     back
     */
    static CopiedTable bringTo(DuckDBConnection connection, String key, TableView view) throws SQLException {
        String columns = signature(view.schema());
        Optional<String[]> recorded = recordedTable(connection, key);
        CopiedTable copied;
        if (recorded.isPresent() && columns.startsWith(recorded.get()[1])) {
            copied = new CopiedTable(connection, recorded.get()[0]);
            if (!columns.equals(recorded.get()[1])) {
                copied.addColumns(view.schema(), recorded.get()[1]);
                update(connection, "UPDATE " + SCHEMA + ".tables SET columns = ? WHERE key = ?", columns, key);
            }
        } else {
            if (recorded.isPresent()) {
                drop(connection, recorded.get()[0]);
            }
            copied = create(connection, key, view.schema(), columns);
        }
        copied.takeFiles(view);
        return copied;
    }

    /** Removes the copy of a table the mirror no longer has. */
    static void drop(DuckDBConnection connection, String relation) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute("DROP TABLE IF EXISTS " + relation);
        }
        update(connection, "DELETE FROM " + SCHEMA + ".files WHERE relation = ?", relation);
        update(connection, "DELETE FROM " + SCHEMA + ".tables WHERE relation = ?", relation);
    }

    /** The relations the copy holds, by key. */
    static Map<String, String> recordedRelations(DuckDBConnection connection) throws SQLException {
        Map<String, String> relations = new HashMap<>();
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT key, relation FROM " + SCHEMA + ".tables")) {
            while (rows.next()) {
                relations.put(rows.getString(1), rows.getString(2));
            }
        }
        return relations;
    }

    /** The query of the table's live rows under the column names and in the column order of {@code schema}. */
    String select(Schema schema) {
        List<String> columns = new ArrayList<>();
        for (Types.NestedField field : schema.columns()) {
            columns.add(column(field) + " AS " + identifier(field.name()));
        }
        return "SELECT " + String.join(", ", columns) + " FROM " + relation;
    }

    /** The table's columns and their DuckDB types, by field id: a table whose signature only grows keeps its rows. */
    private static String signature(Schema schema) {
        return schema.columns().stream().map(field -> column(field) + " " + TableView.duckDbType(field.type()) + ";")
                .collect(Collectors.joining());
    }

    private static String column(Types.NestedField field) {
        return "f" + field.fieldId();
    }

    private static Optional<String[]> recordedTable(DuckDBConnection connection, String key) throws SQLException {
        try (PreparedStatement query = connection.prepareStatement("SELECT relation, columns FROM " + SCHEMA
                + ".tables WHERE key = ?")) {
            query.setString(1, key);
            try (ResultSet rows = query.executeQuery()) {
                return rows.next() ? Optional.of(new String[] {rows.getString(1), rows.getString(2)})
                        : Optional.empty();
            }
        }
    }

    private static CopiedTable create(DuckDBConnection connection, String key, Schema schema, String columns)
            throws SQLException {
        String relation = SCHEMA + ".t" + nextId(connection);
        List<String> definitions = new ArrayList<>();
        for (Types.NestedField field : schema.columns()) {
            definitions.add(column(field) + " " + TableView.duckDbType(field.type()));
        }
        definitions.add("file_id BIGINT NOT NULL");
        definitions.add("pos BIGINT NOT NULL");
        try (Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE " + relation + " (" + String.join(", ", definitions) + ")");
        }
        update(connection, "INSERT INTO " + SCHEMA + ".tables VALUES (?, ?, ?)", key, relation, columns);
        return new CopiedTable(connection, relation);
    }

    private void addColumns(Schema schema, String recordedColumns) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            for (Types.NestedField field : schema.columns()) {
                if (!recordedColumns.contains(column(field) + " ")) {
                    statement.execute("ALTER TABLE " + relation + " ADD COLUMN " + column(field) + " "
                            + TableView.duckDbType(field.type()));
                }
            }
        }
    }

    private void takeFiles(TableView view) throws SQLException {
        Map<String, HeldFile> held = new HashMap<>();
        try (PreparedStatement query = connection.prepareStatement("SELECT path, file_id, vector FROM " + SCHEMA
                + ".files WHERE relation = ?")) {
            query.setString(1, relation);
            try (ResultSet rows = query.executeQuery()) {
                while (rows.next()) {
                    held.put(rows.getString(1), new HeldFile(rows.getLong(2), rows.getString(3)));
                }
            }
        }
        Set<String> current = Set.copyOf(view.dataFiles());
        List<String> gone = new ArrayList<>();
        held.forEach((path, file) -> {
            if (!current.contains(path)) {
                gone.add(Long.toString(file.id()));
            }
        });
        try (Statement statement = connection.createStatement()) {
            if (!gone.isEmpty()) {
                String ids = String.join(", ", gone);
                statement.execute("DELETE FROM " + relation + " WHERE file_id IN (" + ids + ")");
                statement.execute("DELETE FROM " + SCHEMA + ".files WHERE relation = " + literal(relation)
                        + " AND file_id IN (" + ids + ")");
            }
        }
        Map<Long, PositionDeleteIndex> deletes = new HashMap<>();
        for (String file : view.dataFiles()) {
            Optional<DeleteFile> vector = view.vector(file);
            String vectorKey = vector.map(CopiedTable::vectorKey).orElse("");
            HeldFile copied = held.get(file);
            if (copied == null) {
                long fileId = nextId(connection);
                insert(view, file, fileId);
                update(connection, "INSERT INTO " + SCHEMA + ".files VALUES (?, ?, ?, ?)", relation, fileId, file,
                        vectorKey);
                if (vector.isPresent()) {
                    deletes.put(fileId, deletedPositions(view, file, vector.get()));
                }
            } else if (!vectorKey.equals(copied.vector())) {
                deletes.put(copied.id(), deletedPositions(view, file, vector.orElseThrow(() -> new IllegalStateException(
                        "Data file " + file + " of " + view.table() + " lost its deletion vector, which Iceberg "
                                + "never does"))));
                update(connection, "UPDATE " + SCHEMA + ".files SET vector = ? WHERE relation = ? AND file_id = ?",
                        vectorKey, relation, copied.id());
            }
        }
        delete(deletes);
    }

    /** The positions a deletion vector deletes; one that cannot be read is damage, like a data file's. */
    private static PositionDeleteIndex deletedPositions(TableView view, String file, DeleteFile vector)
            throws SQLException {
        try {
            return view.read(vector);
        } catch (NotFoundException | UncheckedIOException e) {
            throw new SQLException(vector.location() + " (the deletion vector of " + file + ") cannot be read: "
                    + e.getMessage(), e);
        }
    }

    /** A data file the copy holds the rows of, and the deletion vector it last applied to them ("" for none). */
    private record HeldFile(long id, String vector) {
    }

    /** Inserts every row of a data file, deleted ones too ({@link #delete} takes them out). */
    private void insert(TableView view, String file, long fileId) throws SQLException {
        Optional<String> damage = FileDamage.of(file, view.fileSize(file));
        if (damage.isPresent()) {
            throw new SQLException("Damaged file: " + damage.get());
        }
        List<String> columns = new ArrayList<>();
        view.schema().columns().forEach(field -> columns.add(column(field)));
        columns.add("pos");
        columns.add("file_id");
        try (Statement statement = connection.createStatement()) {
            statement.execute("INSERT INTO " + relation + " (" + String.join(", ", columns) + ") SELECT rows.*, "
                    + fileId + " FROM (" + view.selectWithPositions(file) + ") rows");
        }
    }

    /** Deletes the rows at the positions of each file, given by file id. */
    private void delete(Map<Long, PositionDeleteIndex> deletes) throws SQLException {
        if (deletes.isEmpty()) {
            return;
        }
        String pending = SCHEMA + ".pending_deletes";
        try (DuckDBAppender appender = connection.createAppender(SCHEMA, "pending_deletes")) {
            for (Map.Entry<Long, PositionDeleteIndex> file : deletes.entrySet()) {
                long fileId = file.getKey();
                SQLException[] failed = new SQLException[1];
                file.getValue().forEach((LongConsumer) position -> {
                    if (failed[0] == null) {
                        try {
                            appender.beginRow().append(fileId).append(position).endRow();
                        } catch (SQLException e) {
                            failed[0] = e;
                        }
                    }
                });
                if (failed[0] != null) {
                    throw failed[0];
                }
            }
        }
        try (Statement statement = connection.createStatement()) {
            statement.execute("DELETE FROM " + relation + " AS t USING " + pending
                    + " AS d WHERE t.file_id = d.file_id AND t.pos = d.pos");
            statement.execute("DELETE FROM " + pending);
        }
    }

    /** What identifies a deletion vector: a newer vector of the same data file is written elsewhere. */
    private static String vectorKey(DeleteFile vector) {
        return vector.location() + "@" + vector.contentOffset();
    }

    private static long nextId(DuckDBConnection connection) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet id = statement.executeQuery("SELECT nextval('" + SCHEMA + ".ids')")) {
            id.next();
            return id.getLong(1);
        }
    }

    private static void update(DuckDBConnection connection, String sql, Object... values) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            for (int index = 0; index < values.length; index++) {
                statement.setObject(index + 1, values[index]);
            }
            statement.execute();
        }
    }
}
