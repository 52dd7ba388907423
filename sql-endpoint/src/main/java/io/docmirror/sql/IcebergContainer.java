package io.docmirror.sql;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.docmirror.layout.ContainerSnapshot;
import io.docmirror.layout.MirrorProperties;
import io.docmirror.layout.MirrorSummary;
import io.docmirror.layout.TableView;
import io.docmirror.mirror.manifest.Checkpoint;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.types.Types;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** A container mirrored as Iceberg tables ({@link ContainerSnapshot}), as the SQL catalog describes it. */
final class IcebergContainer implements MirroredContainer {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final TypeReference<Map<String, String>> ROLES = new TypeReference<>() {
    };
    private static final TypeReference<List<Conflict>> CONFLICTS = new TypeReference<>() {
    };

    private final ContainerSnapshot snapshot;
    private final Snapshot commit;

    IcebergContainer(ContainerSnapshot snapshot) {
        this.snapshot = snapshot;
        this.commit = snapshot.rootSnapshot();
    }

    @Override
    public String name() {
        return snapshot.container();
    }

    @Override
    public long version() {
        return Long.parseLong(commit.summary().get(MirrorSummary.BATCH));
    }

    @Override
    public long committedAt() {
        return commit.timestampMillis();
    }

    @Override
    public long lastEventTs() {
        return Long.parseLong(commit.summary().getOrDefault(MirrorSummary.LAST_EVENT_TS, "0"));
    }

    @Override
    public Map<String, Long> positions() {
        String checkpoint = commit.summary().get(MirrorSummary.CHECKPOINT);
        return MirroredContainer.positions(checkpoint == null ? Checkpoint.NONE
                : read(checkpoint, new TypeReference<Checkpoint>() { }, Checkpoint.NONE));
    }

    @Override
    public List<Table> tables() {
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

    @Override
    public List<Conflict> conflicts() {
        return snapshot.rootProperty(MirrorProperties.CONFLICTS).map(json -> read(json, CONFLICTS, List.<Conflict>of()))
                .orElse(List.of());
    }

    @Override
    public void prepare(Connection connection) throws SQLException {
        snapshot.loadDeletedRows(connection);
    }

    @Override
    public String currentState(Table table, String rootRelation) {
        return snapshot.currentState(table.name(), rootRelation);
    }

    @Override
    public String history() {
        return snapshot.history();
    }

    @Override
    public String deadLetters() {
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
}
