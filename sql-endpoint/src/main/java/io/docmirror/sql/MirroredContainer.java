package io.docmirror.sql;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.docmirror.layout.ContainerSnapshot;
import io.docmirror.layout.MirrorProperties;
import io.docmirror.layout.MirrorSummary;
import io.docmirror.layout.TableView;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.types.Types;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One mirrored container as a generation of the SQL catalog shows it ({@link ContainerSnapshot}): its tables and
 * their columns, its conflicts, where it stands, and the SQL of its views.
 */
final class MirroredContainer {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final TypeReference<Map<String, String>> ROLES = new TypeReference<>() {
    };
    private static final TypeReference<List<Conflict>> CONFLICTS = new TypeReference<>() {
    };
    private static final TypeReference<Map<String, Long>> POSITIONS = new TypeReference<>() {
    };

    private final ContainerSnapshot snapshot;
    private final Snapshot commit;

    MirroredContainer(ContainerSnapshot snapshot) {
        this.snapshot = snapshot;
        this.commit = snapshot.rootSnapshot();
    }

    String name() {
        return snapshot.container();
    }

    /** The mirror's batch the container's tables are at. */
    long version() {
        return Long.parseLong(commit.summary().get(MirrorSummary.BATCH));
    }

    /** When that batch was committed, epoch milliseconds. */
    long committedAt() {
        return commit.timestampMillis();
    }

    /** The store's commit time of the newest change the mirror holds, epoch milliseconds (0: none). */
    long lastEventTs() {
        return Long.parseLong(commit.summary().getOrDefault(MirrorSummary.LAST_EVENT_TS, "0"));
    }

    /** Where the batch ends in its source: the newest LSN per feed range, and Kafka's next offsets. */
    Map<String, Long> positions() {
        return read(commit.summary().get(MirrorSummary.POSITIONS), POSITIONS, Map.of());
    }

    /** The container's tables, the root first. */
    List<Table> tables() {
        List<Table> tables = new ArrayList<>();
        for (ContainerSnapshot.FlattenedTable table : snapshot.tables()) {
            Map<String, String> roles = read(table.table().properties().get(MirrorProperties.COLUMN_ROLES), ROLES,
                    Map.of());
            List<Column> columns = new ArrayList<>();
            for (Types.NestedField field : table.view().schema().columns()) {
                columns.add(new Column(field.name(), TableView.duckDbType(field.type()),
                        roles.getOrDefault(field.name(), "value"), field.doc()));
            }
            tables.add(new Table(table.name(), table.parent(),
                    table.table().properties().getOrDefault(MirrorProperties.JSON_PATH, "$"), columns,
                    table.view().dataFiles().size()));
        }
        return tables;
    }

    List<Conflict> conflicts() {
        return snapshot.rootProperty(MirrorProperties.CONFLICTS).map(json -> read(json, CONFLICTS, List.<Conflict>of()))
                .orElse(List.of());
    }

    /**
     * The files of its tables that cannot be read as their metadata records them (missing, truncated): the views
     * name their files without reading them, so a damaged file would only fail the queries that reach it.
     */
    List<String> damagedFiles() {
        return snapshot.damagedFiles();
    }

    /** Puts what the views need into the generation's database before they are created (deletion vectors). */
    void prepare(Connection connection) throws SQLException {
        snapshot.loadDeletionVectors(connection);
    }

    /**
     * The current rows of one of {@link #tables()}.
     *
     * @param rootRelation the SQL name of the root table's view, which a child table may join to
     */
    String currentState(Table table, String rootRelation) {
        return snapshot.currentState(table.name(), rootRelation);
    }

    /** Every change: {@code id, _pk, _lsn, _ts, _commit_time, operation, ttl_expired, document}. */
    String history() {
        return snapshot.history();
    }

    /** Documents that could not be mirrored: {@code container, id, _lsn, reason, raw_document}. */
    String deadLetters() {
        return snapshot.deadLetters();
    }

    private static <T> T read(String json, TypeReference<T> type, T absent) {
        if (json == null) {
            return absent;
        }
        try {
            return JSON.readValue(json, type);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("A property of the mirror's tables cannot be read: " + json, e);
        }
    }

    /** A mirrored table: its name, its parent's (null for the root), its JSON path, columns and data files. */
    record Table(String name, String parent, String jsonPath, List<Column> columns, int files) {
        boolean isRoot() {
            return parent == null;
        }
    }

    /** A column as {@code docmirror_columns} lists it. */
    record Column(String name, String type, String role, String jsonPath) {
    }

    /** Values of one path that did not fit where the flattener put the path ({@code docmirror_conflicts}). */
    record Conflict(String table, String jsonPath, String keptType, String seenType, String resolution, long count,
            List<String> sampleIds) {
    }
}
