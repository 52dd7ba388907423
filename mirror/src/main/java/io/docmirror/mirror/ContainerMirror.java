package io.docmirror.mirror;

import io.docmirror.flatten.Flattener;
import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.flatten.SchemaCodec;
import io.docmirror.flatten.TableSchema;
import io.docmirror.mirror.manifest.BackfillProgress;
import io.docmirror.mirror.manifest.Checkpoint;
import io.docmirror.mirror.manifest.ConflictEntry;
import io.docmirror.mirror.manifest.DataFile;
import io.docmirror.mirror.manifest.DurableFiles;
import io.docmirror.mirror.manifest.Manifest;
import io.docmirror.mirror.manifest.ManifestStore;
import io.docmirror.mirror.manifest.ReaderLeases;
import io.docmirror.mirror.manifest.TableEntry;
import io.docmirror.mirror.parquet.HistoryFormat;
import io.docmirror.mirror.parquet.ParquetDataFileWriter;
import io.docmirror.mirror.parquet.TableFormat;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.changelog.ChangeEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.stream.Stream;

import static java.util.Objects.requireNonNull;

/**
 * One container's mirror: its committed manifest versions, the flattener whose schema made them, and the commit of
 * new batches. Only one {@code ContainerMirror} writes a container's mirror at a time (a file lock says so).
 *
 * <p>The commit protocol (docs/architecture.md): a batch's Parquet files and, when it changed, the flattener's schema are
 * written and fsynced first; then the manifest version that lists them, with the checkpoint the batch ends at, is
 * committed atomically. A crash before that leaves files that no manifest lists; they are removed when the mirror
 * opens again, and the flattener's schema is reloaded from the last committed version, so the replayed changes get
 * exactly the same decisions.
 */
public final class ContainerMirror implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ContainerMirror.class);

    private final String container;
    private final long analyticalTtl;
    private final FlattenerConfig flattenerConfig;
    private final MirrorConfig config;
    private final Clock clock;
    private final ManifestStore manifests;
    private final ReaderLeases readers;
    private final WriterLock lock;
    /** Encodes and writes the rows of this mirror's batches, beside the thread that flattens them. */
    private final ExecutorService encoders;
    private Manifest committed;
    private String committedSchema;
    private Flattener flattener;
    /** True from {@link #openForRebuild} until the rebuild commits: the saved schema is being replaced. */
    private boolean rebuilding;
    private Batch openBatch;
    /** Files replaced by compactions, oldest first, until no kept manifest version lists them. */
    private final Deque<ReplacedFiles> garbage = new ArrayDeque<>();

    /** The files a compaction committed as version {@code replacedAt} replaced. */
    private record ReplacedFiles(long replacedAt, List<DataFile> files) {
    }

    private ContainerMirror(String container, long analyticalTtl, FlattenerConfig flattenerConfig,
            MirrorConfig config, Clock clock, ManifestStore manifests, WriterLock lock) {
        this.container = container;
        this.analyticalTtl = analyticalTtl;
        this.flattenerConfig = flattenerConfig;
        this.config = config;
        this.clock = clock;
        this.manifests = manifests;
        this.readers = new ReaderLeases(manifests.containerDirectory());
        this.lock = lock;
        this.encoders = Executors.newFixedThreadPool(Runtime.getRuntime().availableProcessors(), runnable -> {
            Thread thread = new Thread(runnable, "docmirror-encoder-" + container);
            thread.setDaemon(true);
            return thread;
        });
    }

    /**
     * Opens (or starts) the mirror of a container in {@code mirrorDirectory/<container>}.
     *
     * @param analyticalTtl the container's analytical TTL in seconds (-1: forever)
     * @throws IllegalStateException when another process mirrors the container, or when the saved schema was made
     *     under another flattener configuration (a rebuild is needed)
     */
    public static ContainerMirror open(Path mirrorDirectory, String container, long analyticalTtl,
            FlattenerConfig flattenerConfig, MirrorConfig config, Clock clock) {
        return open(mirrorDirectory, container, analyticalTtl, null, flattenerConfig, config, clock, false);
    }

    /**
     * Opens (or starts) the mirror of {@code container} as the store has it now: when the directory mirrors an
     * earlier container of the same name (deleted and created again), that mirror is dropped and this one starts from
     * the container's first change ({@link ContainerIdentity}).
     */
    public static ContainerMirror open(Path mirrorDirectory, ContainerProperties container,
            FlattenerConfig flattenerConfig, MirrorConfig config, Clock clock) {
        return open(mirrorDirectory, container.id(), container.analyticalTtl(), container.resourceId(),
                flattenerConfig, config, clock, false);
    }

    /**
     * Opens a committed mirror to rebuild its tables from its history under {@code flattenerConfig}, which may
     * differ from the configuration its saved schema was made with.
     */
    static ContainerMirror openForRebuild(Path mirrorDirectory, String container, FlattenerConfig flattenerConfig,
            MirrorConfig config, Clock clock) {
        Path directory = MirrorLayout.containerDirectory(mirrorDirectory, container);
        long analyticalTtl = new ManifestStore(directory).latest().map(Manifest::analyticalTtl).orElseThrow(() ->
                new IllegalArgumentException("Cannot rebuild the tables of " + container + ": " + directory
                        + " holds no committed mirror"));
        return open(mirrorDirectory, container, analyticalTtl, null, flattenerConfig, config, clock, true);
    }

    /** @param resourceId the container's {@code _rid}, to tell it from an earlier one of its name; null: unknown */
    private static ContainerMirror open(Path mirrorDirectory, String container, long analyticalTtl, String resourceId,
            FlattenerConfig flattenerConfig, MirrorConfig config, Clock clock, boolean rebuilding) {
        FormatGuard.check(mirrorDirectory, container, MirrorFormat.MANIFEST);
        Path directory = MirrorLayout.containerDirectory(mirrorDirectory, container);
        WriterLock lock = WriterLock.take(directory, container);
        try {
            if (resourceId != null) {
                ContainerIdentity.claim(directory, container, resourceId, Set.of(WriterLock.FILE));
            }
            ContainerMirror mirror = new ContainerMirror(container, analyticalTtl, flattenerConfig, config, clock,
                    new ManifestStore(directory), lock);
            mirror.rebuilding = rebuilding;
            mirror.committed = mirror.manifests.latest().orElse(null);
            mirror.committedSchema = mirror.committed == null ? null : mirror.readSchema(mirror.committed);
            mirror.flattener = mirror.committedFlattener();
            mirror.removeUnreferencedFiles();
            mirror.reportDamagedFiles();
            return mirror;
        } catch (RuntimeException e) {
            try {
                lock.close();
            } catch (RuntimeException closing) {
                e.addSuppressed(closing);
            }
            throw e;
        }
    }

    public String container() {
        return container;
    }

    /** Where this container's mirror lives. */
    Path directory() {
        return manifests.containerDirectory();
    }

    /** The newest committed version; empty before the first commit. */
    public Optional<Manifest> manifest() {
        return Optional.ofNullable(committed);
    }

    /** Where the next batch's changes start in the source. */
    public Checkpoint checkpoint() {
        return committed == null ? Checkpoint.NONE : committed.checkpoint();
    }

    /** A backfill that was started and has not finished; empty when there is none. */
    public Optional<BackfillProgress> backfill() {
        return committed == null ? Optional.empty() : Optional.ofNullable(committed.backfill());
    }

    /** Starts the next batch of streamed changes; one batch at a time. */
    public Batch begin() {
        return begin(MirrorBatch.Purpose.STREAM);
    }

    /** Starts the batch of one feed range's backfill snapshot, whose table files are base files. */
    Batch beginBackfill() {
        return begin(MirrorBatch.Purpose.BACKFILL);
    }

    /** Starts the one batch of a rebuild: the history's changes, flattened afresh. See {@link #openForRebuild}. */
    Batch beginRebuild() {
        if (!rebuilding) {
            throw new IllegalStateException("The mirror of " + container + " was not opened for a rebuild");
        }
        backfill().ifPresent(unfinished -> {
            throw new IllegalStateException("Cannot rebuild the tables of " + container + ": its backfill has not "
                    + "finished; run `docmirror backfill --container " + container + "` again first");
        });
        return begin(MirrorBatch.Purpose.REBUILD);
    }

    private Batch begin(MirrorBatch.Purpose purpose) {
        if (openBatch != null) {
            throw new IllegalStateException("A batch of " + container + " is open already");
        }
        long version = committed == null ? 1 : committed.version() + 1;
        openBatch = new Batch(new MirrorBatch(manifests.containerDirectory(), container, version, config.parquet(),
                flattener, purpose, encoders), version);
        return openBatch;
    }

    @Override
    public void close() {
        try {
            if (openBatch != null) {
                openBatch.abort();
            }
        } finally {
            encoders.shutdown();
        }
        lock.close();
    }

    /** A committed batch: the version it became, and the files it wrote for it. */
    public record Commit(Manifest manifest, List<DataFile> filesWritten) {
        public Commit {
            filesWritten = List.copyOf(filesWritten);
        }
    }

    /** The changes of one commit. Either {@link #commit} or {@link #abort} ends it. */
    public final class Batch {
        private final MirrorBatch files;
        private final long version;

        private Batch(MirrorBatch files, long version) {
            this.files = files;
            this.version = version;
        }

        public void add(ChangeEvent event) {
            requireNonNull(event, "event is null");
            files.add(event);
        }

        public long events() {
            return files.events();
        }

        /**
         * Makes the batch visible, durably, as the next manifest version ending at {@code checkpoint}. On failure
         * nothing becomes visible: the batch is abandoned and the next one starts from the last committed version.
         */
        public Commit commit(Checkpoint checkpoint) {
            requireNonNull(checkpoint, "checkpoint is null");
            return commitVersion((written, schemaFile) -> new Manifest(version, container, clock.millis(),
                    analyticalTtl, checkpoint, schemaFile,
                    tables(table -> concat(tableFiles(table), written.tables().getOrDefault(table, List.of()))),
                    concat(committedHistory(), written.history()),
                    concat(committedDeadLetters(), written.deadLetters()),
                    Math.max(written.lastEventTs(), committedLastEventTs()), ConflictEntry.of(flattener.schema()),
                    backfill().orElse(null), committedHistoryFrom()));
        }

        /**
         * Commits the batch as one more feed range of a backfill, whose snapshot was taken at {@code lsn}: durably,
         * as the next manifest version, but readers see none of it until {@link #finishBackfill} swaps the
         * backfill's files in.
         */
        Commit commitBackfillRange(int feedRange, long lsn, int feedRanges) {
            return commitVersion((written, schemaFile) -> new Manifest(version, container, clock.millis(),
                    analyticalTtl, checkpoint(), schemaFile, tables(ContainerMirror.this::tableFiles),
                    committedHistory(), committedDeadLetters(), committedLastEventTs(),
                    ConflictEntry.of(flattener.schema()), backfill().orElse(BackfillProgress.start(feedRanges))
                            .withRange(feedRange, lsn, written.tables(), written.history(), written.deadLetters(),
                                    written.events(), written.lastEventTs()), committedHistoryFrom()));
        }

        /**
         * Commits a rebuild: its files and schema replace every table's files, schema and dead letters at once;
         * the history and the checkpoint stay as they were. The replaced files are deleted once no kept manifest
         * version lists them.
         */
        Commit commitRebuild() {
            List<DataFile> replaced = concat(committed.tables().stream().flatMap(table -> table.files().stream())
                    .toList(), committed.deadLetters());
            Commit commit = commitVersion((written, schemaFile) -> new Manifest(version, container, clock.millis(),
                    analyticalTtl, checkpoint(), schemaFile,
                    tables(table -> written.tables().getOrDefault(table, List.of())), committedHistory(),
                    written.deadLetters(), committedLastEventTs(), ConflictEntry.of(flattener.schema()), null,
                    committedHistoryFrom()));
            rebuilding = false;
            garbage.add(new ReplacedFiles(version, replaced));
            pruneVersions();
            return commit;
        }

        private Commit commitVersion(BiFunction<MirrorBatch.Files, String, Manifest> nextVersion) {
            try {
                MirrorBatch.Files written = files.finish();
                String schema = SchemaCodec.toJson(flattener.schema());
                String schemaFile = committed == null ? null : committed.schemaFile();
                if (!schema.equals(committedSchema)) {
                    schemaFile = MirrorLayout.schemaFilePath(version);
                    writeDurably(manifests.containerDirectory().resolve(schemaFile), schema);
                }
                Manifest manifest = nextVersion.apply(written, schemaFile);
                manifests.commit(manifest);
                committed = manifest;
                committedSchema = schema;
                openBatch = null;
                pruneVersions();
                return new Commit(manifest, written.all());
            } catch (RuntimeException e) {
                abort();
                throw e;
            }
        }

        /** Drops the batch: its files are removed and the flattener forgets what the batch taught it. */
        public void abort() {
            openBatch = null;
            try {
                files.close();
            } finally {
                flattener = committedFlattener();
            }
        }
    }

    /**
     * Ends a backfill whose every feed range is done: the backfill's base files replace every table's files, its
     * history joins the history, and the change feed goes on from {@code checkpoint} (each range's snapshot LSN).
     * The replaced files are deleted once no kept manifest version lists them.
     */
    Manifest finishBackfill(Checkpoint checkpoint) {
        BackfillProgress progress = backfill().filter(BackfillProgress::isComplete).orElseThrow(() ->
                new IllegalStateException("The backfill of " + container + " has feed ranges left to do"));
        if (openBatch != null) {
            throw new IllegalStateException("Cannot finish the backfill of " + container + " while a batch is open");
        }
        long version = committed.version() + 1;
        List<DataFile> replaced = committed.tables().stream().flatMap(table -> table.files().stream()).toList();
        Manifest manifest = new Manifest(version, container, clock.millis(), analyticalTtl, checkpoint,
                committed.schemaFile(), tables(table -> progress.tables().getOrDefault(table, List.of())),
                concat(committed.history(), progress.history()), concat(committed.deadLetters(),
                        progress.deadLetters()), Math.max(committed.lastEventTs(), progress.lastEventTs()),
                committed.conflicts(), null, checkpoint.continuation());
        manifests.commit(manifest);
        committed = manifest;
        garbage.add(new ReplacedFiles(version, replaced));
        pruneVersions();
        return manifest;
    }

    /**
     * Commits a mended history as the next version: the {@code damaged} history files give way to one new file of
     * {@code recovered}, the changes they held, taken again from the store's change log. The tables stay as they are
     * (a rebuild from the mended history renews them). The damaged files are deleted once no kept version lists them.
     */
    Manifest commitHistoryRepair(List<DataFile> damaged, List<ChangeEvent> recovered) {
        if (openBatch != null) {
            throw new IllegalStateException("Cannot repair the history of " + container + " while a batch is open");
        }
        long version = committed.version() + 1;
        String path = MirrorLayout.HISTORY_DIRECTORY + "/" + MirrorLayout.dataFileName(version, 0);
        DataFile file;
        try (ParquetDataFileWriter writer = new ParquetDataFileWriter(manifests.containerDirectory(), path,
                DataFile.Kind.DELTA, HistoryFormat.SCHEMA, HistoryFormat.LSN_FIELD, config.parquet(), Runnable::run)) {
            for (ChangeEvent event : recovered) {
                String document = event.documentJson().map(json -> new String(json, StandardCharsets.UTF_8))
                        .orElse(null);
                writer.write(HistoryFormat.record(event, event.partitionKey().toString(),
                        HistoryFormat.documentTs(event), document));
            }
            file = writer.finish();
        }
        List<DataFile> history = new ArrayList<>(committed.history().stream()
                .filter(existing -> !damaged.contains(existing)).toList());
        history.add(file);
        Manifest manifest = new Manifest(version, container, clock.millis(), committed.analyticalTtl(),
                committed.checkpoint(), committed.schemaFile(), committed.tables(), history, committed.deadLetters(),
                committed.lastEventTs(), committed.conflicts(), committed.backfill(), committed.historyFrom());
        manifests.commit(manifest);
        committed = manifest;
        garbage.add(new ReplacedFiles(version, damaged));
        pruneVersions();
        return manifest;
    }

    /**
     * Commits a compaction of an earlier version as the next version: each compacted table's files of that version
     * give way to its new base file, and the delta files committed since stay on top of it, so no query result
     * changes. The replaced files are deleted once no kept manifest version lists them.
     *
     * @throws IllegalStateException while a batch is open (its files are named for the next version)
     */
    Manifest commitCompaction(Compactor.Compaction compaction) {
        if (openBatch != null) {
            throw new IllegalStateException("Cannot commit a compaction of " + container + " while a batch is open");
        }
        long version = committed.version() + 1;
        List<TableEntry> tables = new ArrayList<>();
        List<DataFile> replaced = new ArrayList<>();
        for (TableEntry table : committed.tables()) {
            Optional<Compactor.CompactedTable> compacted = compaction.tables().stream()
                    .filter(candidate -> candidate.table().equals(table.name())).findFirst();
            if (compacted.isEmpty()) {
                tables.add(table);
                continue;
            }
            List<DataFile> files = new ArrayList<>();
            if (!compacted.get().isEmpty()) {
                files.add(moveIntoPlace(compacted.get(), version, tables.size(), DataFile.Kind.BASE));
            }
            files.addAll(table.files().stream().filter(file -> !compacted.get().replaced().contains(file)).toList());
            replaced.addAll(compacted.get().replaced());
            tables.add(new TableEntry(table.name(), table.parent(), table.jsonPath(), table.columns(), files));
        }
        List<DataFile> history = mergedLog(compaction.history(), committed.history(), version, tables.size(),
                replaced);
        List<DataFile> deadLetters = mergedLog(compaction.deadLetters(), committed.deadLetters(), version,
                tables.size() + 1, replaced);
        Manifest manifest = new Manifest(version, container, clock.millis(), committed.analyticalTtl(),
                committed.checkpoint(), committed.schemaFile(), tables, history, deadLetters,
                committed.lastEventTs(), committed.conflicts(), committed.backfill(), committed.historyFrom());
        manifests.commit(manifest);
        committed = manifest;
        garbage.add(new ReplacedFiles(version, replaced));
        pruneVersions();
        return manifest;
    }

    /** A log's files after a compaction merged some of them ({@code merged}, or {@code null}: none). */
    private List<DataFile> mergedLog(Compactor.CompactedTable merged, List<DataFile> files, long version, int index,
            List<DataFile> replaced) {
        if (merged == null) {
            return files;
        }
        List<DataFile> kept = new ArrayList<>();
        kept.add(moveIntoPlace(merged, version, index, DataFile.Kind.DELTA));
        kept.addAll(files.stream().filter(file -> !merged.replaced().contains(file)).toList());
        replaced.addAll(merged.replaced());
        return kept;
    }

    private DataFile moveIntoPlace(Compactor.CompactedTable compacted, long version, int index, DataFile.Kind kind) {
        String path = compacted.directory() + "/" + MirrorLayout.dataFileName(version, index);
        Path target = manifests.containerDirectory().resolve(path);
        try {
            DurableFiles.fsync(compacted.temporaryFile());
            Files.move(compacted.temporaryFile(), target, StandardCopyOption.ATOMIC_MOVE);
            DurableFiles.fsyncDirectory(target.getParent());
            return new DataFile(path, kind, compacted.rows(), compacted.minLsn(), compacted.maxLsn(),
                    Files.size(target)).withNumberTypesOf(compacted.columns());
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot move the compacted file " + compacted.temporaryFile() + " to "
                    + target, e);
        }
    }

    /**
     * Removes old manifest versions ({@code mirror.manifest.keep-versions}, {@code keep-ms}) that no reader holds,
     * then the files that compactions replaced and that neither a kept version nor a reader's version lists.
     */
    private void pruneVersions() {
        manifests.prune(config.keepManifestVersions(), clock.millis() - config.keepManifestsFor().toMillis(),
                readers.oldestHeld().orElse(Long.MAX_VALUE));
        if (garbage.isEmpty()) {
            return;
        }
        // The leases are looked at again after the manifests went: a reader that took its lease meanwhile either
        // shows up here, or found its manifest gone and reads a newer version (ReaderLeases).
        long oldestKept = Math.min(manifests.versions().get(0), readers.oldestHeld().orElse(Long.MAX_VALUE));
        while (!garbage.isEmpty() && garbage.peekFirst().replacedAt() <= oldestKept) {
            for (DataFile file : garbage.pollFirst().files()) {
                // Routine after every compaction, so not worth a line in the log.
                log.debug("Removing {} of the mirror of {}: replaced by a compaction", file.path(), container);
                delete(manifests.containerDirectory().resolve(file.path()));
            }
        }
    }

    /** Every table of the flattener's schema, with its columns as of now and the files {@code filesOf} gives. */
    private List<TableEntry> tables(Function<String, List<DataFile>> filesOf) {
        List<TableEntry> tables = new ArrayList<>();
        for (TableSchema table : flattener.schema().tables()) {
            tables.add(new TableEntry(table.name(), table.parent().orElse(null), table.jsonPath().toString(),
                    TableFormat.columnEntries(table), filesOf.apply(table.name())));
        }
        return tables;
    }

    /** A table's files in the committed version; none before the first commit or for a new table. */
    private List<DataFile> tableFiles(String table) {
        return committed == null
                ? List.of()
                : committed.findTable(table).map(TableEntry::files).orElse(List.of());
    }

    private List<DataFile> committedHistory() {
        return committed == null ? List.of() : committed.history();
    }

    private List<DataFile> committedDeadLetters() {
        return committed == null ? List.of() : committed.deadLetters();
    }

    private String committedHistoryFrom() {
        return committed == null ? null : committed.historyFrom();
    }

    private long committedLastEventTs() {
        return committed == null ? 0 : committed.lastEventTs();
    }

    private Flattener committedFlattener() {
        return committedSchema == null || rebuilding
                ? Flattener.create(flattenerConfig)
                : new Flattener(SchemaCodec.fromJson(committedSchema, flattenerConfig));
    }

    private String readSchema(Manifest manifest) {
        if (manifest.schemaFile() == null) {
            return null;
        }
        Path file = manifests.containerDirectory().resolve(manifest.schemaFile());
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read the flattener schema " + file + " of the mirror of "
                    + container, e);
        }
    }

    /**
     * Removes what a crash left: files of a commit that never happened (named for a version after the newest
     * committed one, or temporary), and data files that no kept manifest version lists (replaced by a compaction
     * whose clean-up did not run).
     */
    /**
     * Says which files of the committed version cannot be read as recorded. The mirror goes on committing (a damaged
     * file fails the queries and compactions of its table only), so that it does not fall behind meanwhile.
     */
    private void reportDamagedFiles() {
        if (committed == null) {
            return;
        }
        List<DamagedFiles.Damage> damages = DamagedFiles.bySize(manifests.containerDirectory(), committed);
        if (!damages.isEmpty()) {
            log.error("The mirror of {} has {} damaged file(s), whose tables fail to answer until `docmirror repair "
                    + "--container {}` mends them: {}", container, damages.size(), container, damages);
        }
    }

    private void removeUnreferencedFiles() {
        long newest = committed == null ? 0 : committed.version();
        Set<Path> listed = new HashSet<>();
        List<Long> versions = manifests.versions();
        for (long version : versions) {
            manifests.read(version).dataFiles()
                    .forEach(file -> listed.add(manifests.containerDirectory().resolve(file.path())));
        }
        // A reader may still hold a version whose manifest went just before it took its lease: keep what is there.
        boolean readersHoldOlderVersions = !versions.isEmpty()
                && readers.oldestHeld().orElse(Long.MAX_VALUE) < versions.get(0);
        try (Stream<Path> files = Files.walk(manifests.containerDirectory(), 2)) {
            for (Path file : files.filter(Files::isRegularFile).toList()) {
                String name = file.getFileName().toString();
                long version = MirrorLayout.versionOf(file);
                if (version > newest || (name.startsWith(".v") && name.endsWith(".tmp"))
                        || name.startsWith(Compactor.TEMPORARY_PREFIX)
                        || name.endsWith(ParquetDataFileWriter.STAGING_SUFFIX)) {
                    log.info("Removing {} of the mirror of {}: written by a commit that did not complete", file,
                            container);
                    delete(file);
                } else if (version >= 0 && name.endsWith(".parquet") && !listed.contains(file)
                        && !readersHoldOlderVersions) {
                    log.info("Removing {} of the mirror of {}: replaced by a compaction, no kept version lists it",
                            file, container);
                    delete(file);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot clean up uncommitted files of the mirror of " + container, e);
        }
    }

    private void delete(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot remove " + file + " of the mirror of " + container, e);
        }
    }

    private static void writeDurably(Path file, String text) {
        try {
            Files.createDirectories(file.getParent());
            Files.writeString(file, text, StandardCharsets.UTF_8);
            DurableFiles.fsync(file);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write " + file, e);
        }
    }

    private static <T> List<T> concat(List<T> first, List<T> second) {
        List<T> all = new ArrayList<>(first);
        all.addAll(second);
        return all;
    }
}
