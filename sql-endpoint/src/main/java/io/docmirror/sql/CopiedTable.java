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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
import java.util.UUID;
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
 * new one is inserted whole, then its deletion vector applied; a file whose deletion vector changed gets the
 * positions the new vector adds deleted ({@link AppliedVectors}; when the previous vector is not known, the whole
 * new one: deleting a row again changes nothing). A table whose columns changed otherwise (a widened type, a column
 * gone) is loaded again.
 */
final class CopiedTable {
    private static final Logger log = LoggerFactory.getLogger(CopiedTable.class);
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
     * @param staging where a data file in an object store is copied to be read (DuckDB reads local files only here)
     * @param vectors the deletion vectors applied last, so that only a newer vector's new positions are deleted
     * @return the copied table, to build the user's view on ({@link #select})
     * @throws SQLException when a data file cannot be read (the message names it): the transaction must be rolled
     *     back
     */
    static CopiedTable bringTo(DuckDBConnection connection, String key, TableView view, Path staging,
            AppliedVectors vectors) throws SQLException {
        String columns = signature(view.schema());
        Optional<RecordedTable> recorded = recordedTable(connection, key);
        CopiedTable copied;
        if (recorded.isPresent() && columns.startsWith(recorded.get().columns())) {
            copied = new CopiedTable(connection, recorded.get().relation());
            if (!columns.equals(recorded.get().columns())) {
                copied.addColumns(view.schema(), recorded.get().columns());
                update(connection, "UPDATE " + SCHEMA + ".tables SET columns = ? WHERE key = ?", columns, key);
            }
        } else {
            if (recorded.isPresent()) {
                drop(connection, recorded.get().relation());
            }
            copied = create(connection, key, view.schema(), columns);
        }
        copied.takeFiles(view, staging, vectors);
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

    /** A table the copy holds: its DuckDB relation and the signature of its columns. */
    private record RecordedTable(String relation, String columns) {
    }

    private static Optional<RecordedTable> recordedTable(DuckDBConnection connection, String key)
            throws SQLException {
        try (PreparedStatement query = connection.prepareStatement("SELECT relation, columns FROM " + SCHEMA
                + ".tables WHERE key = ?")) {
            query.setString(1, key);
            try (ResultSet rows = query.executeQuery()) {
                return rows.next() ? Optional.of(new RecordedTable(rows.getString(1), rows.getString(2)))
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

    private void takeFiles(TableView view, Path staging, AppliedVectors vectors) throws SQLException {
        long started = System.nanoTime();
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
        long removed = System.nanoTime();
        int inserted = 0;
        Map<Long, NewlyDeleted> deletes = new HashMap<>();
        for (String file : view.dataFiles()) {
            Optional<DeleteFile> vector = view.vector(file);
            String vectorKey = vector.map(CopiedTable::vectorKey).orElse("");
            vector.ifPresent(applied -> vectors.hold(vectorKey, applied));
            HeldFile copied = held.get(file);
            if (copied == null) {
                long fileId = nextId(connection);
                insert(view, file, fileId, staging);
                inserted++;
                update(connection, "INSERT INTO " + SCHEMA + ".files VALUES (?, ?, ?, ?)", relation, fileId, file,
                        vectorKey);
                if (vector.isPresent()) {
                    deletes.put(fileId, new NewlyDeleted(deletedPositions(view, file, vector.get()), null));
                }
            } else if (!vectorKey.equals(copied.vector())) {
                DeleteFile newer = vector.orElseThrow(() -> new IllegalStateException("Data file " + file + " of "
                        + view.table() + " lost its deletion vector, which Iceberg never does"));
                deletes.put(copied.id(), new NewlyDeleted(deletedPositions(view, file, newer),
                        previouslyDeleted(view, vectors.previous(copied.vector()))));
                update(connection, "UPDATE " + SCHEMA + ".files SET vector = ? WHERE relation = ? AND file_id = ?",
                        vectorKey, relation, copied.id());
            }
        }
        long insertedAt = System.nanoTime();
        delete(deletes);
        if (log.isDebugEnabled()) {
            log.debug("{} ({}): {} files gone in {} ms, {} inserted in {} ms, {} vectors applied in {} ms",
                    view.table(), relation, gone.size(), (removed - started) / 1_000_000, inserted,
                    (insertedAt - removed) / 1_000_000, deletes.size(), (System.nanoTime() - insertedAt) / 1_000_000);
        }
    }

    /**
     * The positions a file's vector deleted when the copy applied it last, when this endpoint did and its Puffin file
     * is still there; null otherwise (then the whole new vector is applied: deleting a row again changes nothing).
     */
    private static PositionDeleteIndex previouslyDeleted(TableView view, Optional<DeleteFile> previous) {
        if (previous.isEmpty()) {
            return null;
        }
        try {
            return view.read(previous.get());
        } catch (NotFoundException | UncheckedIOException e) {
            log.debug("The deletion vector {} is gone: the whole newer one is applied", previous.get().location());
            return null;
        }
    }

    /** A data file's deleted positions now, and those the copy had already deleted (null: not known). */
    private record NewlyDeleted(PositionDeleteIndex now, PositionDeleteIndex before) {
        boolean isNew(long position) {
            return before == null || !before.isDeleted(position);
        }
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

    /**
     * Inserts every row of a data file, deleted ones too ({@link #delete} takes them out); a file in an object store
     * through a local copy in {@code staging}, removed once read.
     */
    private void insert(TableView view, String file, long fileId, Path staging) throws SQLException {
        if (!TableView.isLocal(file)) {
            Path local = staging.resolve(UUID.randomUUID() + ".parquet");
            try {
                download(view, file, local);
                insert(view, file, local.toString(), fileId);
            } finally {
                try {
                    Files.deleteIfExists(local);
                } catch (IOException e) {
                    log.warn("Cannot remove the local copy {} of {}", local, file, e);
                }
            }
            return;
        }
        Optional<String> damage = FileDamage.of(file, view.fileSize(file));
        if (damage.isPresent()) {
            throw new SQLException("Damaged file: " + damage.get());
        }
        insert(view, file, file, fileId);
    }

    private void insert(TableView view, String file, String readFrom, long fileId) throws SQLException {
        List<String> columns = new ArrayList<>();
        view.schema().columns().forEach(field -> columns.add(column(field)));
        columns.add("pos");
        columns.add("file_id");
        try (Statement statement = connection.createStatement()) {
            statement.execute("INSERT INTO " + relation + " (" + String.join(", ", columns) + ") SELECT rows.*, "
                    + fileId + " FROM (" + view.selectWithPositions(file, readFrom) + ") rows");
        }
    }

    /** Copies a data file from its object store, checking it has the size its table's metadata records. */
    private static void download(TableView view, String file, Path local) throws SQLException {
        try {
            Files.createDirectories(local.getParent());
            try (InputStream in = view.inputFile(file).newStream()) {
                Files.copy(in, local);
            }
            long size = Files.size(local);
            if (size != view.fileSize(file)) {
                throw new SQLException("Damaged file: " + file + " has " + size + " bytes, its table's metadata "
                        + "records " + view.fileSize(file));
            }
        } catch (IOException | UncheckedIOException | NotFoundException e) {
            throw new SQLException("Damaged file: " + file + " cannot be read: " + e.getMessage(), e);
        }
    }

    /** Deletes the rows at the new positions of each file, given by file id. */
    private void delete(Map<Long, NewlyDeleted> deletes) throws SQLException {
        if (deletes.isEmpty()) {
            return;
        }
        String pending = SCHEMA + ".pending_deletes";
        try (DuckDBAppender appender = connection.createAppender(SCHEMA, "pending_deletes")) {
            for (Map.Entry<Long, NewlyDeleted> file : deletes.entrySet()) {
                long fileId = file.getKey();
                NewlyDeleted positions = file.getValue();
                SQLException[] failed = new SQLException[1];
                positions.now().forEach((LongConsumer) position -> {
                    if (failed[0] == null && positions.isNew(position)) {
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
