package io.docmirror.mirror;

import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.layout.CatalogReader;
import io.docmirror.layout.ContainerSnapshot;
import io.docmirror.mirror.iceberg.ContainerBatch;
import io.docmirror.mirror.iceberg.ContainerTables;
import io.docmirror.store.PartitionKeyValue;
import io.docmirror.store.changelog.ChangeEvent;
import io.docmirror.store.changelog.Operation;
import org.apache.iceberg.catalog.TableIdentifier;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.LongConsumer;

import static java.util.Objects.requireNonNull;

/**
 * Re-derives a container's tables from the mirror's own history after a change of the flattener's configuration
 * (a type policy, an override, the column limit), without reading the store: every change of the history is
 * flattened afresh, in commit order, into new files, and one catalog commit replaces every flattened table and the
 * dead letters at once (Iceberg replace transactions: each table keeps its snapshot history). The history and the
 * feed checkpoint stay as they were, so the daemon streams on with the new configuration. A killed rebuild leaves the mirror as it was (its files are removed when
 * the mirror next opens).
 *
 * <p>A container's tables all come from the same documents, so a rebuild of any of them rebuilds them all.
 */
public final class Rebuild {
    /** Progress is reported every this many changes. */
    private static final int PROGRESS_STEP = 1000;

    private final Path mirrorDirectory;
    private final MirrorConfig config;
    /** What the analytical TTL counts back from, as the mirror's own TTL commits do. */
    private final Clock clock;

    /**
     * @param tables the container's tables after the rebuild
     * @param position the commit that swapped them in ({@code batch 42})
     */
    public record Result(String container, long changes, List<String> tables, String position) {
        public Result {
            tables = List.copyOf(tables);
        }
    }

    public Rebuild(Path mirrorDirectory, MirrorConfig config, Clock clock) {
        this.mirrorDirectory = requireNonNull(mirrorDirectory, "mirrorDirectory is null");
        this.config = requireNonNull(config, "config is null");
        this.clock = requireNonNull(clock, "clock is null");
    }

    /**
     * The container whose mirror has a table of that name (its root table, named after it, or a child table).
     *
     * @throws IllegalArgumentException when no mirrored container has it
     */
    public String containerOf(String table) {
        Set<TableIdentifier> tables;
        try (CatalogReader catalog = CatalogReader.open(config.catalog().settings(mirrorDirectory))) {
            tables = catalog.pointers().locations().keySet();
        }
        for (TableIdentifier identifier : tables) {
            if (identifier.name().equals(table)) {
                return identifier.namespace().level(0);
            }
        }
        throw new IllegalArgumentException("Cannot rebuild table " + table + ": no mirrored container in "
                + mirrorDirectory + " has a table of that name");
    }

    /**
     * Rebuilds every table of {@code container} under {@code flattenerConfig}.
     *
     * @param progress told how many changes have been replayed so far
     */
    public Result run(String container, FlattenerConfig flattenerConfig, LongConsumer progress) {
        try (ContainerTables tables = ContainerTables.openForRebuild(mirrorDirectory, container, flattenerConfig,
                config)) {
            // What a killed run left goes first, as the daemon's first upkeep would remove it.
            tables.removeOrphanFiles();
            ContainerSnapshot snapshot = read(container);
            ContainerBatch batch = tables.beginRebuild();
            long changes;
            try {
                changes = replay(snapshot, tables.scratch(), batch::add, progress);
            } catch (RuntimeException e) {
                batch.abort();
                throw e;
            }
            batch.commit(tables.checkpoint());
            List<String> names = read(container).tables().stream()
                    .map(ContainerSnapshot.FlattenedTable::name).toList();
            return new Result(container, changes, names, tables.position());
        }
    }

    /** The container's tables as they are now. */
    private ContainerSnapshot read(String container) {
        return ContainerSnapshot.read(config.catalog().settings(mirrorDirectory), container).orElseThrow();
    }

    /**
     * Hands every change of the history of {@code snapshot} to {@code batch}, in commit order; under an analytical
     * TTL, as of the mirror's clock, which its TTL commits count back from too.
     */
    private long replay(ContainerSnapshot snapshot, ScratchDirectory scratch, Consumer<ChangeEvent> batch,
            LongConsumer progress) {
        String container = snapshot.container();
        String history = snapshot.history(OptionalLong.of(clock.instant().getEpochSecond()));
        long changes = 0;
        try (Connection connection = BackgroundDuckDb.connect(scratch)) {
            snapshot.loadDeletionVectors(connection);
            try (Statement statement = connection.createStatement();
                 ResultSet rows = statement.executeQuery("SELECT id, _pk, _lsn, epoch_ms(_commit_time), operation, "
                         + "ttl_expired, document FROM (" + history + ") ORDER BY _commit_time, _lsn")) {
                while (rows.next()) {
                    batch.accept(change(container, rows));
                    if (++changes % PROGRESS_STEP == 0) {
                        progress.accept(changes);
                    }
                }
            }
        } catch (SQLException e) {
            throw new MirrorException(MirrorErrorCode.IO_FAILURE,
                    "Cannot read the history of " + container + " for its rebuild: "
                    + e.getMessage(), e);
        }
        progress.accept(changes);
        return changes;
    }

    /** A history row as the change it recorded (without the previous image, which the mirror does not use). */
    private static ChangeEvent change(String container, ResultSet row) throws SQLException {
        String id = row.getString(1);
        PartitionKeyValue partitionKey = partitionKey(row.getString(2), container, id);
        long lsn = row.getLong(3);
        long commitMillis = row.getLong(4);
        Operation operation = Operation.valueOf(row.getString(5));
        if (operation == Operation.DELETE) {
            return new ChangeEvent(container, partitionKey, id, operation, lsn, commitMillis, row.getBoolean(6),
                    Optional.empty(), Optional.empty());
        }
        return ChangeEvent.ofCurrentVersion(container, partitionKey, id, operation == Operation.CREATE, lsn,
                commitMillis, row.getString(7).getBytes(StandardCharsets.UTF_8));
    }

    private static PartitionKeyValue partitionKey(String text, String container, String id) {
        try {
            return PartitionKeyValue.parse(text);
        } catch (IllegalArgumentException e) {
            throw new MirrorException(MirrorErrorCode.UNREADABLE_MIRROR,
                    "Cannot rebuild " + container + ": the history's partition key of " + id
                    + " is not a partition key value: " + e.getMessage(), e);
        }
    }
}
