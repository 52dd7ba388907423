package io.docmirror.mirror;

import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.flatten.SchemaCodec;
import io.docmirror.layout.ContainerSnapshot;
import io.docmirror.mirror.iceberg.ContainerTables;
import io.docmirror.mirror.manifest.DataFile;
import io.docmirror.mirror.manifest.Manifest;
import io.docmirror.mirror.manifest.ManifestStore;
import io.docmirror.store.ChangeLogPage;
import io.docmirror.store.StoreClient;
import io.docmirror.store.StoreErrorCode;
import io.docmirror.store.StoreException;
import io.docmirror.store.changelog.ChangeEvent;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

import static io.docmirror.mirror.manifest.ViewDefinitions.literal;
import static java.util.Objects.requireNonNull;

/**
 * Mends a container's mirror whose files cannot be read as its manifest recorded them ({@link DamagedFiles}):
 * <ol>
 *   <li>History files: the changes they held are read again from the store's change log, which must still hold
 *       them, and committed as a new history file in their place.</li>
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
        Path directory = MirrorLayout.containerDirectory(mirrorDirectory, container);
        Optional<Manifest> latest = new ManifestStore(directory).latest();
        if (latest.isEmpty()) {
            Optional<ContainerSnapshot> tables = ContainerSnapshot.read(mirrorDirectory, container);
            if (tables.isPresent()) {
                return runOnTables(container, tables.get());
            }
        }
        Manifest manifest = latest.orElseThrow(() -> new IllegalArgumentException(
                "Cannot repair the mirror of " + container + ": " + directory + " holds no committed mirror"));
        List<DamagedFiles.Damage> damages = DamagedFiles.inDepth(directory, manifest);
        List<String> described = damages.stream().map(DamagedFiles.Damage::toString).toList();
        if (damages.isEmpty()) {
            return new Result(container, described, 0, 0);
        }
        List<DataFile> damagedHistory = damages.stream().filter(damage -> damage.part().equals("history"))
                .map(DamagedFiles.Damage::file).toList();
        FlattenerConfig flattenerConfig = flattenerConfig(directory, manifest);
        long recovered = 0;
        if (!damagedHistory.isEmpty()) {
            String files = damagedHistory.stream().map(DataFile::path).collect(Collectors.joining(", "));
            List<ChangeEvent> changes = lostChanges(container, files,
                    damagedHistory.stream().mapToLong(DataFile::minLsn).min().orElseThrow(),
                    damagedHistory.stream().mapToLong(DataFile::rows).sum(), manifest.checkpoint().reachedPositions(),
                    manifest.historyFromPositions(), intactChanges(directory, manifest, damagedHistory));
            try (ContainerMirror mirror = ContainerMirror.open(mirrorDirectory, container, manifest.analyticalTtl(),
                    flattenerConfig, config, clock)) {
                mirror.commitHistoryRepair(damagedHistory, changes);
            }
            recovered = changes.size();
        }
        Rebuild.Result rebuilt = new Rebuild(mirrorDirectory, config, clock).run(container, flattenerConfig,
                changes -> { });
        return new Result(container, described, recovered, rebuilt.changes());
    }

    /**
     * The repair of a container kept as Iceberg tables: damaged history files give way to a file of the changes
     * read again from the change log (one commit), then every flattened table and the dead letters are rebuilt from
     * the history.
     */
    private Result runOnTables(String container, ContainerSnapshot snapshot) {
        List<String> damages = snapshot.damagedFiles();
        if (damages.isEmpty()) {
            return new Result(container, damages, 0, 0);
        }
        FlattenerConfig flattenerConfig;
        List<org.apache.iceberg.DataFile> damagedHistory;
        Map<Integer, Long> positions;
        Map<Integer, Long> historyFrom;
        // Opened as for a rebuild: whatever configuration made the tables, and without reading the rows' places.
        try (ContainerTables tables = ContainerTables.openForRebuild(mirrorDirectory, container,
                FlattenerConfig.defaults(container), config.withFormat(MirrorFormat.ICEBERG))) {
            flattenerConfig = tables.flattenerConfigOfTables();
            damagedHistory = tables.damagedHistoryFiles();
            positions = tables.checkpoint().reachedPositions();
            historyFrom = tables.historyFrom();
        }
        long recovered = 0;
        if (!damagedHistory.isEmpty()) {
            String files = damagedHistory.stream().map(org.apache.iceberg.DataFile::location)
                    .collect(Collectors.joining(", "));
            long fromLsn = damagedHistory.stream().mapToLong(ContainerTables::lowestLsn).min().orElseThrow();
            long expected = damagedHistory.stream().mapToLong(org.apache.iceberg.DataFile::recordCount).sum();
            Set<String> intact = new HashSet<>();
            try (ContainerTables tables = ContainerTables.open(mirrorDirectory, container, flattenerConfig,
                    config.withFormat(MirrorFormat.ICEBERG))) {
                tables.forEachIntactHistoryChange(damagedHistory, (lsn, partitionKey, id) ->
                        intact.add(key(lsn, partitionKey, id)));
                List<ChangeEvent> changes = lostChanges(container, files, fromLsn, expected, positions, historyFrom,
                        intact);
                tables.repairHistory(damagedHistory, changes);
                recovered = changes.size();
            }
        }
        Rebuild.Result rebuilt = new Rebuild(mirrorDirectory, config.withFormat(MirrorFormat.ICEBERG), clock)
                .run(container, flattenerConfig, changes -> { });
        return new Result(container, damages, recovered, rebuilt.changes());
    }

    /** The configuration the mirror's tables were made with, so that the rebuild maps documents as they were. */
    private static FlattenerConfig flattenerConfig(Path directory, Manifest manifest) {
        if (manifest.schemaFile() == null) {
            return FlattenerConfig.defaults(manifest.container());
        }
        try {
            return SchemaCodec.fromJson(Files.readString(directory.resolve(manifest.schemaFile()))).config();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read the schema of the mirror of " + manifest.container(), e);
        }
    }

    /**
     * The changes the damaged history files held: those of the change log from {@code fromLsn} up to the mirror's
     * {@code positions}, that the intact history files lack ({@code intact}, keys as {@link #key} makes them). Their
     * number must be what the mirror recorded of the damaged files ({@code expected}).
     */
    private List<ChangeEvent> lostChanges(String container, String damaged, long fromLsn, long expected,
            Map<Integer, Long> positions, Map<Integer, Long> historyFrom, Set<String> intact) {
        List<ChangeEvent> lost = new ArrayList<>();
        int ranges = store.readContainer(container).logPartitions();
        for (int range = 0; range < ranges; range++) {
            long after = fromLsn - 1;
            long until = positions.getOrDefault(range, 0L);
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
                    if (!intact.contains(key(event.lsn(), event.partitionKey().toString(), event.id()))) {
                        lost.add(event);
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

    /** The keys ({@code _lsn, _pk, id}) of the changes the intact history files hold. */
    private static Set<String> intactChanges(Path directory, Manifest manifest, List<DataFile> damaged) {
        List<DataFile> intact = manifest.history().stream().filter(file -> !damaged.contains(file)).toList();
        Set<String> keys = new HashSet<>();
        if (intact.isEmpty()) {
            return keys;
        }
        String files = intact.stream().map(file -> literal(directory.resolve(file.path()).toString()))
                .collect(Collectors.joining(", ", "[", "]"));
        try (Connection connection = BackgroundDuckDb.connect(); Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT _lsn, _pk, id FROM read_parquet(" + files + ")")) {
            while (rows.next()) {
                keys.add(key(rows.getLong(1), rows.getString(2), rows.getString(3)));
            }
        } catch (SQLException e) {
            throw new IllegalStateException("Cannot read the intact history of " + manifest.container() + ": "
                    + e.getMessage(), e);
        }
        return keys;
    }

    private static IllegalStateException cannotRepair(String container, String damaged, String why) {
        return new IllegalStateException("Cannot repair the history of " + container + " (" + damaged + "): " + why
                + ". The mirror is left as it was; run `docmirror backfill --container " + container
                + "` to snapshot the container again");
    }

    static String key(long lsn, String partitionKey, String id) {
        return lsn + "\u0000" + partitionKey + "\u0000" + id;
    }
}
