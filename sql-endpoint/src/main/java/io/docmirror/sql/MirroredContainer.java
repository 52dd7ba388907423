package io.docmirror.sql;

import io.docmirror.mirror.manifest.Checkpoint;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One mirrored container as a generation of the SQL catalog shows it, whatever the mirror's format: its tables and
 * their columns, its conflicts, where it stands, and the SQL of its views.
 */
interface MirroredContainer {
    String name();

    /** The commit the container's tables are at: a manifest version, or the Iceberg mirror's batch number. */
    long version();

    /** When that commit was made, epoch milliseconds (0: unknown). */
    long committedAt();

    /** The store's commit time of the newest change the mirror holds, epoch milliseconds (0: none). */
    long lastEventTs();

    /** Where the commit ends in its source: the newest LSN per feed range, and Kafka's next offsets. */
    Map<String, Long> positions();

    /** The container's tables, the root first. */
    List<Table> tables();

    List<Conflict> conflicts();

    /** Puts what the views need into the generation's database before they are created (deleted rows, say). */
    void prepare(Connection connection) throws SQLException;

    /**
     * The current rows of one of {@link #tables()}.
     *
     * @param rootRelation the SQL name of the root table's view, which a child table may join to
     */
    String currentState(Table table, String rootRelation);

    /** Every change: {@code id, _pk, _lsn, _ts, _commit_time, operation, ttl_expired, document}. */
    String history();

    /** Documents that could not be mirrored: {@code container, id, _lsn, reason, raw_document}. */
    String deadLetters();

    /** The positions of {@code checkpoint}, as {@link #positions()} gives them. */
    static Map<String, Long> positions(Checkpoint checkpoint) {
        Map<String, Long> positions = new TreeMap<>(checkpoint.kafkaOffsets());
        checkpoint.reachedPositions().forEach((range, lsn) -> positions.put("feed range " + range, lsn));
        return positions;
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
