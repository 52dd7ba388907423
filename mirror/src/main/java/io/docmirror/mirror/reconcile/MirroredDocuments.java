package io.docmirror.mirror.reconcile;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.docmirror.flatten.ContainerSchema;
import io.docmirror.flatten.DocumentRebuilder;
import io.docmirror.flatten.Row;
import io.docmirror.flatten.SchemaCodec;
import io.docmirror.flatten.TableSchema;
import org.apache.iceberg.io.SeekableInputStream;
import io.docmirror.layout.ContainerSnapshot;
import io.docmirror.layout.MirrorSummary;
import io.docmirror.layout.TableView;
import org.duckdb.DuckDBConnection;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

import static io.docmirror.flatten.SystemColumn.ID;
import static io.docmirror.flatten.SystemColumn.LSN;
import static io.docmirror.flatten.SystemColumn.PARTITION_KEY;
import static io.docmirror.flatten.SystemColumn.TS;
import static io.docmirror.layout.TableView.identifier;

/**
 * A container's documents as one commit of its mirror serves them (its tables at one read of the catalog): every
 * table read through the views users query ({@link ContainerSnapshot}), each document rebuilt from its rows ({@link DocumentRebuilder}) with the
 * schema that made them. What a user reading the mirror sees, turned back into JSON.
 *
 * <p>It reads through a DuckDB database on disk in the reconcile's directory, so that what grows with the container
 * (the keys of its documents, its rows sorted by key) is on disk, and one document's rows at a time in memory.
 */
final class MirroredDocuments implements AutoCloseable {
    /** Writes rebuilt documents; numbers as their values say (no plain-decimal expansion of 1e2147483647). */
    private static final ObjectMapper WRITER = new ObjectMapper();

    /** A name no table of the mirror has: mirrored table names never start with a dot. */
    private static final String ROOT_KEYS = "\".root keys\"";

    private final String container;
    private final ContainerSchema schema;
    private final DuckDBConnection connection;

    /** One mirrored document: its key, the LSN and {@code _ts} of its version, and its JSON. */
    record Document(String partitionKey, String id, long lsn, long ts, byte[] json) {
    }

    /** One change the history holds. */
    record HistoryEntry(String partitionKey, String id, long lsn, long ts, String operation, boolean ttlExpired,
            String document) {
    }

    /**
     * The documents of the tables at one read of the catalog's pointers.
     *
     * @param asOfEpochSeconds the time the analytical TTL counts back from, so that both sides of a comparison
     *     leave out the same rows
     * @param scratch where the database is
     */
    MirroredDocuments(ContainerSnapshot snapshot, long asOfEpochSeconds, ReconcileScratch scratch)
            throws SQLException {
        this(snapshot.container(), loadSchema(snapshot), scratch.openDatabase("mirror"));
        OptionalLong asOf = OptionalLong.of(asOfEpochSeconds);
        try (Statement statement = connection.createStatement()) {
            snapshot.loadDeletionVectors(connection);
            String root = identifier(snapshot.root().name());
            statement.execute("CREATE VIEW " + root + " AS " + snapshot.currentState(snapshot.root().name(), null,
                    asOf));
            statement.execute("CREATE TABLE " + ROOT_KEYS + " AS SELECT _pk, id, _lsn FROM " + root);
            for (ContainerSnapshot.FlattenedTable table : snapshot.tables()) {
                if (!table.isRoot()) {
                    statement.execute("CREATE VIEW " + identifier(table.name()) + " AS "
                            + snapshot.currentState(table.name(), ROOT_KEYS, asOf));
                }
            }
            statement.execute("CREATE VIEW history AS " + snapshot.history(asOf));
        } catch (SQLException e) {
            connection.close();
            throw e;
        }
    }

    private MirroredDocuments(String container, ContainerSchema schema, DuckDBConnection connection) {
        this.container = container;
        this.schema = schema;
        this.connection = connection;
    }

    private static ContainerSchema loadSchema(ContainerSnapshot snapshot) {
        String location = snapshot.rootSnapshot().summary().get(MirrorSummary.FLATTENER_SCHEMA);
        try (SeekableInputStream in = snapshot.root().table().io().newInputFile(location).newStream()) {
            return SchemaCodec.fromJson(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read the schema of the mirror of " + snapshot.container(), e);
        }
    }

    /**
     * Hands every current document to {@code sink}, in the order of their keys (partition key, then id, as DuckDB
     * orders text): a key the mirror holds twice comes twice in a row.
     */
    void forEach(DocumentSink sink) throws SQLException {
        try (DocumentRowsInKeyOrder documents = DocumentRowsInKeyOrder.open(connection, schema)) {
            while (documents.next()) {
                sink.accept(document(documents.rows()));
            }
        }
    }

    /** The current document with this key, if the mirror holds one. */
    Optional<Document> find(String partitionKey, String id) throws SQLException {
        List<Row> rows = new ArrayList<>();
        String rootCondition = " WHERE _pk = " + TableView.literal(partitionKey) + " AND id = "
                + TableView.literal(id);
        readRows(schema.root(), rootCondition, rows::add);
        if (rows.isEmpty()) {
            return Optional.empty();
        }
        String childCondition = " WHERE _pk = " + TableView.literal(partitionKey) + " AND _id = "
                + TableView.literal(id);
        for (TableSchema table : schema.tables()) {
            if (!table.isRoot()) {
                readRows(table, childCondition, rows::add);
            }
        }
        return Optional.of(document(rows));
    }

    /** Hands every change the history shows to {@code sink}. */
    void forEachHistoryEntry(HistorySink sink) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery("SELECT _pk, id, _lsn, _ts, operation, ttl_expired, "
                        + "document FROM history")) {
            while (result.next()) {
                sink.accept(new HistoryEntry(result.getString(1), result.getString(2), result.getLong(3),
                        result.getLong(4), result.getString(5), result.getBoolean(6), result.getString(7)));
            }
        }
    }

    private static Document document(List<Row> rows) {
        Row root = rows.get(0);
        ObjectNode rebuilt = DocumentRebuilder.rebuild(rows);
        try {
            return new Document((String) root.value(PARTITION_KEY.columnName()), (String) root.value(ID.columnName()), (Long) root.value(LSN.columnName()),
                    root.value(TS.columnName()) == null ? 0 : (Long) root.value(TS.columnName()), WRITER.writeValueAsBytes(rebuilt));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("Cannot write the rebuilt document " + root.value(ID.columnName()), e);
        }
    }

    private interface RowSink {
        void accept(Row row);
    }

    interface DocumentSink {
        void accept(Document document) throws SQLException;
    }

    interface HistorySink {
        void accept(HistoryEntry entry) throws SQLException;
    }

    /** The rows of {@code table} that {@code condition} selects. */
    private void readRows(TableSchema table, String condition, RowSink sink) throws SQLException {
        try (TableRows rows = TableRows.select(connection, table, identifier(table.name()), condition)) {
            while (rows.next()) {
                sink.accept(rows.row());
            }
        }
    }

    @Override
    public void close() throws SQLException {
        connection.close();
    }
}
