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

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * One mirrored container as the SQL catalog shows it ({@link ContainerSnapshot}): its tables and
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

    /** The view of one of {@link #tables()}'s Iceberg snapshot: its files and deletion vectors. */
    TableView view(Table table) {
        return flattened(table).view();
    }

    /**
     * The current rows of one of {@link #tables()}: of {@code rows} (its copied rows), those the analytical TTL keeps.
     *
     * @param rootRelation the SQL name of the root table's view, which a child table may join to
     */
    String currentState(Table table, String rows, String rootRelation) {
        return snapshot.withinAnalyticalTtl(flattened(table), rows, rootRelation, OptionalLong.empty());
    }

    private ContainerSnapshot.FlattenedTable flattened(Table table) {
        return snapshot.tables().stream().filter(candidate -> candidate.name().equals(table.name())).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("Container " + name() + " has no table "
                        + table.name()));
    }

    /** The history table's view; empty for a container mirrored without one. */
    Optional<TableView> historyView() {
        return snapshot.historyView();
    }

    /**
     * Every change: {@code id, _pk, _lsn, _ts, _commit_time, operation, ttl_expired, document}, of {@code rows} (the
     * copied history) those the analytical TTL keeps; no row without a history.
     */
    String history(Optional<String> rows) {
        return rows.map(snapshot::historyWithinAnalyticalTtl).orElse(ContainerSnapshot.NO_HISTORY);
    }

    /** The dead-letter table's view: {@code container, id, _lsn, reason, raw_document}; empty while there is none. */
    Optional<TableView> deadLettersView() {
        return snapshot.deadLettersView();
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
