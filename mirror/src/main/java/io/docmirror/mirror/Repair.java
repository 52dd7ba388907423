package io.docmirror.mirror;

import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.layout.ContainerSnapshot;
import io.docmirror.mirror.iceberg.ContainerTables;
import io.docmirror.store.ChangeLogPage;
import io.docmirror.store.StoreClient;
import io.docmirror.store.StoreErrorCode;
import io.docmirror.store.StoreException;
import io.docmirror.store.changelog.ChangeEvent;
import org.apache.iceberg.DataFile;

import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static java.util.Objects.requireNonNull;

/**
 * Mends a container's mirror whose files cannot be read as its tables recorded them (missing, or not their recorded
 * size: {@link ContainerSnapshot#damagedFiles()}):
 * <ol>
 *   <li>History files: the changes they held are read again from the store's change log, which must still hold
 *       them, and committed in one commit as a new history file in their place.</li>
 *   <li>Then every table and the dead letters, which all come from the history, are rebuilt from it
 *       ({@link Rebuild}) under the configuration they were made with.</li>
 * </ol>
 * When the change log no longer holds what a damaged history file held, the history cannot be mended exactly, and the
 * repair says so and changes nothing: {@code docmirror backfill} then snapshots the container again.
 */
public final class Repair {
    private static final int PAGE = 1000;

    private final StoreClient store;
    private final Path mirrorDirectory;
    private final MirrorConfig config;
    private final Clock clock;

    /**
     * @param recoveredChanges how many changes the mended history got back from the change log
     * @param rebuiltChanges how many changes the tables were rebuilt from; 0 when nothing was damaged
     */
    public record Result(String container, List<String> damages, long recoveredChanges, long rebuiltChanges) {
        public Result {
            damages = List.copyOf(damages);
        }
    }

    public Repair(StoreClient store, Path mirrorDirectory, MirrorConfig config, Clock clock) {
        this.store = requireNonNull(store, "store is null");
        this.mirrorDirectory = requireNonNull(mirrorDirectory, "mirrorDirectory is null");
        this.config = requireNonNull(config, "config is null");
        this.clock = requireNonNull(clock, "clock is null");
    }

    public Result run(String container) {
        ContainerSnapshot snapshot = ContainerSnapshot.read(config.catalog().settings(mirrorDirectory), container)
                .orElseThrow(() -> new IllegalArgumentException("Cannot repair the mirror of " + container + ": "
                        + "its catalog holds no committed mirror of it"));
        List<String> damages = snapshot.damagedFiles();
        if (damages.isEmpty()) {
            return new Result(container, damages, 0, 0);
        }
        FlattenerConfig flattenerConfig;
        List<DataFile> damagedHistory;
        Map<Integer, Long> positions;
        Map<Integer, Long> historyFrom;
        // Opened as for a rebuild: whatever configuration made the tables, and without reading the rows' places.
        try (ContainerTables tables = ContainerTables.openForRebuild(mirrorDirectory, container,
                FlattenerConfig.defaults(container), config)) {
            flattenerConfig = tables.flattenerConfigOfTables();
            damagedHistory = tables.damagedHistoryFiles();
            positions = tables.checkpoint().reachedPositions();
            historyFrom = tables.historyFrom();
        }
        long recovered = 0;
        if (!damagedHistory.isEmpty()) {
            String files = damagedHistory.stream().map(DataFile::location)
                    .collect(Collectors.joining(", "));
            long fromLsn = damagedHistory.stream().mapToLong(ContainerTables::lowestLsn).min().orElseThrow();
            long toLsn = damagedHistory.stream().mapToLong(ContainerTables::highestLsn).max().orElseThrow();
            long expected = damagedHistory.stream().mapToLong(DataFile::recordCount).sum();
            // Only the changes of the damaged files' span of LSNs: what it takes stays as large as what they held,
            // however long the history is.
            Set<String> intact = new HashSet<>();
            try (ContainerTables tables = ContainerTables.open(mirrorDirectory, container, flattenerConfig,
                    config)) {
                tables.forEachIntactHistoryChange(damagedHistory, fromLsn, toLsn, (lsn, partitionKey, id) ->
                        intact.add(key(lsn, partitionKey, id)));
                List<ChangeEvent> changes = lostChanges(container, files, fromLsn, toLsn, expected, positions,
                        historyFrom, intact);
                tables.repairHistory(damagedHistory, changes);
                recovered = changes.size();
            }
        }
        Rebuild.Result rebuilt = new Rebuild(mirrorDirectory, config, clock)
                .run(container, flattenerConfig, changes -> { });
        return new Result(container, damages, recovered, rebuilt.changes());
    }

    /**
     * The changes the damaged history files held: those of the change log from {@code fromLsn} to {@code toLsn} (and
     * at most up to the mirror's {@code positions}) that the intact history files lack ({@code intact}, keys as
     * {@link #key} makes them). Their number must be what the mirror recorded of the damaged files
     * ({@code expected}).
     */
    private List<ChangeEvent> lostChanges(String container, String damaged, long fromLsn, long toLsn, long expected,
            Map<Integer, Long> positions, Map<Integer, Long> historyFrom, Set<String> intact) {
        List<ChangeEvent> lost = new ArrayList<>();
        int ranges = store.readContainer(container).logPartitions();
        for (int range = 0; range < ranges; range++) {
            long after = fromLsn - 1;
            long until = Math.min(toLsn, positions.getOrDefault(range, 0L));
            if (historyFrom.getOrDefault(range, 0L) >= fromLsn) {
                throw cannotRepair(container, damaged, "they hold entries a backfill wrote of the documents as of "
                        + "its snapshot, which no change log holds");
            }
            while (after < until) {
                ChangeLogPage page;
                try {
                    page = store.readChangeLog(container, range, after, PAGE);
                } catch (StoreException e) {
                    if (e.code() != StoreErrorCode.GONE) {
                        throw e;
                    }
                    throw cannotRepair(container, damaged, "the store's change log of feed range " + range
                            + " no longer holds the changes from LSN " + fromLsn + " (" + e.getMessage() + ")");
                }
                if (page.events().isEmpty()) {
                    break;
                }
                for (ChangeEvent event : page.events()) {
                    if (event.lsn() > until) {
                        break;
                    }
                    after = event.lsn();
                    if (!intact.contains(key(event.lsn(), event.partitionKey().jsonText(), event.id()))) {
                        lost.add(event);
                        if (lost.size() > expected) {
                            throw cannotRepair(container, damaged, "the change log has more than " + expected
                                    + " changes the other history files lack, where the damaged files held "
                                    + expected);
                        }
                    }
                }
            }
        }
        if (lost.size() != expected) {
            throw cannotRepair(container, damaged, "the change log has " + lost.size() + " changes the other "
                    + "history files lack, where the damaged files held " + expected);
        }
        return lost;
    }

    private static MirrorException cannotRepair(String container, String damaged, String why) {
        return new MirrorException(MirrorErrorCode.UNREADABLE_MIRROR,
                "Cannot repair the history of " + container + " (" + damaged + "): " + why
                + ". The mirror is left as it was; run `docmirror backfill --container " + container
                + "` to snapshot the container again");
    }

    static String key(long lsn, String partitionKey, String id) {
        return lsn + "\u0000" + partitionKey + "\u0000" + id;
    }
}
