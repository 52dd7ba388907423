package io.docmirror.sql;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.docmirror.layout.MirrorProperties;
import io.docmirror.layout.MirrorSummary;
import io.docmirror.layout.TableView;
import io.docmirror.mirror.manifest.Checkpoint;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.types.Types;
import org.duckdb.DuckDBAppender;
import org.duckdb.DuckDBConnection;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A container mirrored as Iceberg tables, at the snapshots one read of the catalog's pointers found. Its views read
 * each table's data files by field id and leave out the rows its deletion vectors delete ({@link TableView}); the
 * deleted rows go into {@value #DELETED_ROWS} of the generation's database first.
 */
final class IcebergContainer implements MirroredContainer {
    /** The positions the deletion vectors delete, of every Iceberg container of a generation. */
    static final String DELETED_ROWS = "docmirror_internal.deleted_rows";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final TypeReference<Map<String, String>> ROLES = new TypeReference<>() {
    };
    private static final TypeReference<List<Conflict>> CONFLICTS = new TypeReference<>() {
    };

    private final String name;
    private final org.apache.iceberg.Table root;
    private final Snapshot rootSnapshot;
    /** The flattened tables, the root first, with their views. */
    private final List<FlattenedTable> flattened = new ArrayList<>();
    private final Optional<TableView> history;
    private final Optional<TableView> deadLetters;

    /** A flattened table under its name in the namespace, and the view of its current snapshot. */
    private record FlattenedTable(String name, org.apache.iceberg.Table table, TableView view) {
        FlattenedTable(String name, org.apache.iceberg.Table table) {
            this(name, table, TableView.current(table));
        }
    }

    private IcebergContainer(String name, Map.Entry<String, org.apache.iceberg.Table> root,
            Map<String, org.apache.iceberg.Table> children, Optional<org.apache.iceberg.Table> history,
            Optional<org.apache.iceberg.Table> deadLetters) {
        this.name = name;
        this.root = root.getValue();
        this.rootSnapshot = this.root.currentSnapshot();
        flattened.add(new FlattenedTable(root.getKey(), root.getValue()));
        new TreeMap<>(children).forEach((childName, child) -> flattened.add(new FlattenedTable(childName, child)));
        this.history = history.map(TableView::current);
        this.deadLetters = deadLetters.map(TableView::current);
    }

    /**
     * The container whose tables are {@code tables} (by name, one namespace); empty when they hold no committed root
     * table yet.
     */
    static Optional<IcebergContainer> of(String name, Map<String, org.apache.iceberg.Table> tables) {
        Map.Entry<String, org.apache.iceberg.Table> root = null;
        org.apache.iceberg.Table history = null;
        org.apache.iceberg.Table deadLetters = null;
        Map<String, org.apache.iceberg.Table> children = new TreeMap<>();
        for (Map.Entry<String, org.apache.iceberg.Table> entry : tables.entrySet()) {
            org.apache.iceberg.Table table = entry.getValue();
            switch (table.properties().getOrDefault(MirrorProperties.TABLE_ROLE, "")) {
                case MirrorProperties.ROOT -> root = entry;
                case MirrorProperties.CHILD -> children.put(entry.getKey(), table);
                case MirrorProperties.HISTORY -> history = table;
                case MirrorProperties.DEAD_LETTERS -> deadLetters = table;
                default -> {
                    // Not a table the mirror made: left out of the catalog.
                }
            }
        }
        if (root == null || root.getValue().currentSnapshot() == null) {
            return Optional.empty();
        }
        return Optional.of(new IcebergContainer(name, root, children, Optional.ofNullable(history),
                Optional.ofNullable(deadLetters)));
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public long version() {
        return Long.parseLong(rootSnapshot.summary().get(MirrorSummary.BATCH));
    }

    @Override
    public long committedAt() {
        return rootSnapshot.timestampMillis();
    }

    @Override
    public long lastEventTs() {
        return Long.parseLong(rootSnapshot.summary().getOrDefault(MirrorSummary.LAST_EVENT_TS, "0"));
    }

    @Override
    public Map<String, Long> positions() {
        String checkpoint = rootSnapshot.summary().get(MirrorSummary.CHECKPOINT);
        try {
            return MirroredContainer.positions(checkpoint == null ? Checkpoint.NONE
                    : JSON.readValue(checkpoint, Checkpoint.class));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("The checkpoint of " + name + " cannot be read: " + checkpoint, e);
        }
    }

    @Override
    public List<Table> tables() {
        List<Table> tables = new ArrayList<>();
        for (FlattenedTable flat : flattened) {
            org.apache.iceberg.Table table = flat.table();
            TableView view = flat.view();
            Map<String, String> roles = read(table.properties().get(MirrorProperties.COLUMN_ROLES), ROLES, Map.of());
            List<Column> columns = new ArrayList<>();
            for (Types.NestedField field : view.schema().columns()) {
                columns.add(new Column(field.name(), TableView.duckDbType(field.type()),
                        roles.getOrDefault(field.name(), "value"), field.doc()));
            }
            tables.add(new Table(flat.name(), table.properties().get(MirrorProperties.PARENT),
                    table.properties().getOrDefault(MirrorProperties.JSON_PATH, "$"), columns,
                    view.dataFiles().size()));
        }
        return tables;
    }

    @Override
    public List<Conflict> conflicts() {
        return read(root.properties().get(MirrorProperties.CONFLICTS), CONFLICTS, List.of());
    }

    @Override
    public void prepare(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute("CREATE SCHEMA IF NOT EXISTS docmirror_internal");
            statement.execute("CREATE TABLE IF NOT EXISTS " + DELETED_ROWS + " (file VARCHAR, pos BIGINT)");
        }
        DuckDBConnection duckDb = connection.unwrap(DuckDBConnection.class);
        try (DuckDBAppender appender = duckDb.createAppender("docmirror_internal", "deleted_rows")) {
            for (FlattenedTable flat : flattened) {
                flat.view().forEachDeleted((file, position) -> {
                    try {
                        appender.beginRow();
                        appender.append(file);
                        appender.append(position);
                        appender.endRow();
                    } catch (SQLException e) {
                        throw new IllegalStateException("Cannot load the deleted rows of " + flat.name(), e);
                    }
                });
            }
        }
    }

    /**
     * The rows of {@code table} its deletion vectors leave; under an analytical TTL, of the documents whose
     * {@code _ts} is within it (a child row through its document's root row).
     */
    @Override
    public String currentState(Table table, String rootRelation) {
        String rows = flattened.stream().filter(flat -> flat.name().equals(table.name())).findFirst().orElseThrow()
                .view().select(DELETED_ROWS);
        long ttl = analyticalTtl();
        if (ttl < 0) {
            return rows;
        }
        return table.isRoot()
                ? "SELECT * FROM (" + rows + ") WHERE _ts > epoch(current_timestamp) - " + ttl
                : "SELECT c.* FROM (" + rows + ") AS c SEMI JOIN " + rootRelation
                        + " AS r ON c._id = r.id AND c._pk = r._pk";
    }

    private long analyticalTtl() {
        return Long.parseLong(root.properties().getOrDefault(MirrorProperties.ANALYTICAL_TTL, "-1"));
    }

    @Override
    public String history() {
        long ttl = analyticalTtl();
        return history.map(view -> ttl < 0 ? view.select(DELETED_ROWS) : "SELECT * FROM ("
                + view.select(DELETED_ROWS) + ") WHERE _ts > epoch(current_timestamp) - " + ttl).orElse("SELECT NULL::VARCHAR AS id, NULL::VARCHAR AS "
                + "_pk, NULL::BIGINT AS _lsn, NULL::BIGINT AS _ts, NULL::TIMESTAMP AS _commit_time, NULL::VARCHAR AS "
                + "operation, NULL::BOOLEAN AS ttl_expired, NULL::VARCHAR AS document WHERE false");
    }

    @Override
    public String deadLetters() {
        return deadLetters.map(view -> view.select(DELETED_ROWS)).orElse("SELECT NULL::VARCHAR AS container, "
                + "NULL::VARCHAR AS id, NULL::BIGINT AS _lsn, NULL::VARCHAR AS reason, NULL::VARCHAR AS raw_document "
                + "WHERE false");
    }

    private static <T> T read(String json, TypeReference<T> type, T absent) {
        if (json == null) {
            return absent;
        }
        try {
            return JSON.readValue(json, type);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("A table property of the mirror cannot be read: " + json, e);
        }
    }
}
