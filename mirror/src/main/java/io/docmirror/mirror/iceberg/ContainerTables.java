package io.docmirror.mirror.iceberg;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.docmirror.flatten.DeadLetter;
import io.docmirror.flatten.FlattenException;
import io.docmirror.flatten.FlattenResult;
import io.docmirror.flatten.Flattener;
import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.flatten.Row;
import io.docmirror.flatten.SchemaChange;
import io.docmirror.flatten.SchemaCodec;
import io.docmirror.flatten.SourceDocument;
import io.docmirror.flatten.TableSchema;
import io.docmirror.layout.CatalogConnection;
import io.docmirror.layout.CatalogSettings;
import io.docmirror.layout.DeletionVectors;
import io.docmirror.layout.EarlierLayout;
import io.docmirror.layout.FileDamage;
import io.docmirror.layout.IcebergWorkers;
import io.docmirror.layout.MirrorCatalog;
import io.docmirror.layout.MirrorLayout;
import io.docmirror.layout.MirrorProperties;
import io.docmirror.layout.MirrorSummary;
import io.docmirror.layout.MirrorTables;
import io.docmirror.layout.ReaderLeases;
import io.docmirror.mirror.DocumentTimestamp;
import io.docmirror.mirror.MirrorConfig;
import io.docmirror.mirror.MirrorTarget;
import io.docmirror.mirror.ScratchDirectory;
import io.docmirror.mirror.WriterLock;
import io.docmirror.mirror.iceberg.ConflictEntry;
import io.docmirror.mirror.source.Checkpoint;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.changelog.ChangeEvent;
import io.docmirror.store.changelog.Operation;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Types;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.LongConsumer;

import static java.util.Objects.requireNonNull;

/**
 * One container's mirror as Apache Iceberg tables (format version 3) in a catalog: the root table, a table per array
 * of objects, the history and the dead letters (names: {@link MirrorTables}).
 *
 * <p>A batch of changes becomes one commit across every table it touches ({@link CatalogBatch}): new rows go into
 * new data files, and the rows an update or a delete replaces get deletion vectors, found through
 * {@link DocumentIndex}, which knows, on disk, where each document's current rows are. The root table's snapshot
 * summary holds the feed checkpoint the batch ends at and the flattener's schema ({@link MirrorSummary}), so a
 * restart resumes exactly where the last commit ended, with the same flattening decisions. Only one process writes a
 * container's tables at a time ({@link WriterLock}).
 *
 * <p>Between batches ({@link #maintain}) the container's analytical TTL is applied as a commit of its own, so that
 * every engine reading the tables leaves out expired documents, not only the SQL endpoint's views.
 */
public final class ContainerTables implements MirrorTarget {
    private static final Logger log = LoggerFactory.getLogger(ContainerTables.class);
    /** The document index's directory, in the container's directory. */
    private static final String DOCUMENT_INDEX = "document-index";
    /** How many documents' committed rows a batch looks up in the index at once. */
    private static final int LOOKUPS_AT_ONCE = 4096;
    private static final ObjectMapper JSON = new ObjectMapper();
    /** The clock of tables opened without an analytical TTL (-1), which never read it. */
    private static final Clock NO_TTL_CLOCK = Clock.systemUTC();

    private final String container;
    private final CatalogSettings settings;
    private final CatalogConnection catalog;
    private final FileIO io;
    private final FlattenerConfig flattenerConfig;
    private final MirrorConfig config;
    private final WriterLock lock;
    /**
     * The container's analytical TTL in seconds (-1: forever), recorded on the root table for readers; empty for
     * tables opened by name (a rebuild, a repair), which leave the recorded one as it is and apply none.
     */
    private final OptionalLong analyticalTtl;
    /** The mirror's clock: what the analytical TTL counts back from, and when it is applied next. */
    private final Clock clock;
    /** When the analytical TTL was last applied; null: not since the tables were opened. */
    private Instant ttlAppliedAt;
    /** By table (the root, the history): which of its data files can hold rows past the analytical TTL. */
    private final Map<String, ExpiredRows> expiredRows = new HashMap<>();
    private final DocumentIndex rows;
    /** The root table's Iceberg UUID, which names the index's commits; null until the root table exists. */
    private String rootUuid;
    private final boolean indexRebuilt;
    /**
     * False once a backfill's batch is committed. A backfill does not note where each document's rows are: every
     * document it writes is new to the tables (a feed range's snapshot, or tables it replaces), and the index of a
     * large container would take memory that grows with it, where a backfill's stays bounded. These tables then do
     * not know where the backfilled documents are, so they take no other batch: the daemon opens the tables again
     * after a first load, which reads the index from the files.
     */
    private boolean documentsIndexed = true;
    /**
     * Which commit left this process's state possibly apart from the catalog's (see {@code Batch.outOfStep}); null
     * while the two agree.
     */
    private String outOfStep;
    private final Map<String, Map<String, DeleteFile>> vectors;
    private Flattener flattener;
    /** True from {@link #openForRebuild} until the rebuild commits: the tables are being derived afresh. */
    private boolean rebuilding;
    private String committedSchema;
    private String committedSchemaLocation;
    private Checkpoint checkpoint;
    private long batches;
    private long lastEventTs;
    private Batch openBatch;
    /** The root summary's entries that carry on from commit to commit: the backfill state, the history's start. */
    private final Map<String, String> carried = new HashMap<>();
    /** The batch number {@link #maintain} last looked at: upkeep is due only after new commits. */
    private long maintainedAt;
    /**
     * Whether the files a crash or a dropped table left were looked for since the tables opened: at the first upkeep,
     * not on opening, since the search reads every retained snapshot's manifests and mirroring can start before.
     */
    private boolean orphansRemoved;
    /** The leases readers (the SQL endpoint) hold on batches they read: their snapshots must not expire. */
    private final ReaderLeases readers;
    private final CommitObserver observer;
    private final EncoderThreads encoders;
    private final DuckDbWriters writers;
    /** Where DuckDB writes a data file before it is copied into its table, and spills. */
    private final ScratchDirectory scratch;
    /** The thread a compaction's rewrite runs on while the daemon goes on committing batches. */
    private final ExecutorService compactor;
    /** The compaction being rewritten off the daemon's thread; null when none is. */
    private CompletableFuture<Compaction> rewriting;

    private ContainerTables(String container, CatalogSettings settings, CatalogConnection catalog, FileIO io,
            FlattenerConfig flattenerConfig, MirrorConfig config, WriterLock lock, DocumentIndex index,
            TablesState state, OptionalLong analyticalTtl, Clock clock, Path directory, boolean rebuilding,
            CommitObserver observer) {
        this.container = container;
        this.settings = settings;
        this.catalog = catalog;
        this.io = io;
        this.flattenerConfig = flattenerConfig;
        this.config = config;
        this.lock = lock;
        this.readers = new ReaderLeases(directory);
        this.analyticalTtl = analyticalTtl;
        this.clock = clock;
        this.rows = index;
        this.rootUuid = state.rootUuid();
        this.indexRebuilt = state.indexRebuilt();
        this.vectors = new HashMap<>(state.vectors());
        this.committedSchema = state.flattenerSchema();
        this.committedSchemaLocation = state.flattenerSchemaLocation();
        this.checkpoint = state.checkpoint();
        this.batches = state.batches();
        this.lastEventTs = state.lastEventTs();
        for (String key : List.of(BackfillState.SUMMARY_KEY, MirrorSummary.HISTORY_FROM)) {
            if (state.summary().containsKey(key)) {
                carried.put(key, state.summary().get(key));
            }
        }
        this.rebuilding = rebuilding;
        this.observer = observer;
        this.flattener = committedSchema == null || rebuilding
                ? Flattener.create(flattenerConfig)
                : new Flattener(SchemaCodec.fromJson(committedSchema, flattenerConfig));
        this.scratch = ScratchDirectory.takeOver(directory, lock);
        this.encoders = EncoderThreads.forCores(container);
        this.writers = DuckDbWriters.open(container, scratch);
        this.compactor = Executors.newSingleThreadExecutor(task -> {
            Thread thread = new Thread(task, "docmirror-compaction-" + container);
            thread.setDaemon(true);
            return thread;
        });
    }

    /**
     * Opens (or starts) the tables of {@code container} in the embedded catalog of {@code mirrorDirectory}.
     *
     * @throws IllegalStateException when another process mirrors the container
     */
    public static ContainerTables open(Path mirrorDirectory, String container, FlattenerConfig flattenerConfig,
            MirrorConfig config) {
        return open(mirrorDirectory, container, flattenerConfig, config, CommitObserver.NONE);
    }

    /**
     * Opens the tables as {@link #open(Path, String, FlattenerConfig, MirrorConfig)} does, telling {@code observer}
     * each step of every commit (a crash test's kill points).
     */
    static ContainerTables open(Path mirrorDirectory, String container, FlattenerConfig flattenerConfig,
            MirrorConfig config, CommitObserver observer) {
        return open(mirrorDirectory, container, null, OptionalLong.empty(), NO_TTL_CLOCK, flattenerConfig, config,
                false, observer);
    }

    /**
     * Opens the committed tables of {@code container} to rebuild them from their history under
     * {@code flattenerConfig}, which may differ from the configuration their schema was made with.
     */
    public static ContainerTables openForRebuild(Path mirrorDirectory, String container,
            FlattenerConfig flattenerConfig, MirrorConfig config) {
        ContainerTables tables = open(mirrorDirectory, container, null, OptionalLong.empty(), NO_TTL_CLOCK,
                flattenerConfig, config, true, CommitObserver.NONE);
        if (tables.batches == 0) {
            tables.close();
            throw new IllegalArgumentException("Cannot rebuild the tables of " + container + ": " + mirrorDirectory
                    + " holds no Iceberg mirror of it");
        }
        return tables;
    }

    /**
     * Opens the committed tables of {@code container} for a backfill that replaces them
     * ({@link #beginReplacingBackfill}), under {@code flattenerConfig} whatever the tables were made with.
     */
    public static ContainerTables openForReplacingBackfill(Path mirrorDirectory, ContainerProperties container,
            FlattenerConfig flattenerConfig, MirrorConfig config, Clock clock) {
        requireNonNull(clock, "clock is null");
        return open(mirrorDirectory, container.id(), container.resourceId(),
                OptionalLong.of(container.analyticalTtl()), clock, flattenerConfig, config, true,
                CommitObserver.NONE);
    }

    /**
     * Opens (or starts) the tables of {@code container} as the store has it now: when they mirror an earlier container
     * of the same name (deleted and created again, so with another {@code _rid}), they are dropped, and this one is
     * mirrored from its first change. Its analytical TTL is applied by {@code clock}.
     */
    public static ContainerTables open(Path mirrorDirectory, ContainerProperties container,
            FlattenerConfig flattenerConfig, MirrorConfig config, Clock clock) {
        requireNonNull(clock, "clock is null");
        return open(mirrorDirectory, container.id(), container.resourceId(),
                OptionalLong.of(container.analyticalTtl()), clock, flattenerConfig, config, false,
                CommitObserver.NONE);
    }

    /**
     * @param analyticalTtl the container's analytical TTL in seconds (-1: forever); empty: the recorded one stays
     * @param clock what the analytical TTL counts back from
     * @param rebuilding true to rebuild the tables under {@code flattenerConfig}: the committed schema, made under
     *     another configuration perhaps, is not taken on, and where the documents' rows are is not read
     * @param observer told of each step of every commit ({@link CommitObserver#NONE} but in a crash test)
     */
    private static ContainerTables open(Path mirrorDirectory, String container, String resourceId,
            OptionalLong analyticalTtl, Clock clock, FlattenerConfig flattenerConfig, MirrorConfig config,
            boolean rebuilding, CommitObserver observer) {
        EarlierLayout.refuse(mirrorDirectory, container);
        Path directory = MirrorLayout.containerDirectory(mirrorDirectory, container);
        WriterLock lock = WriterLock.take(directory, container);
        CatalogSettings settings = config.catalog().settings(mirrorDirectory);
        CatalogConnection catalog = null;
        FileIO io = null;
        DocumentIndex index = null;
        try {
            catalog = MirrorCatalog.open(settings);
            // The catalog's own file access (local, or an object store's): every file the mirror writes, reads or
            // removes outside Iceberg's commit goes through it too.
            io = MirrorCatalog.openFileIO(settings);
            ContainerNamespace.claim(catalog.catalog(), container, resourceId, flattenerConfig.rootTable());
            SystemColumnMigration.migrate(catalog.catalog(), container, flattenerConfig.rootTable(), rebuilding);
            index = DocumentIndex.open(directory.resolve(DOCUMENT_INDEX),
                    DocumentKeys.reader(catalog.catalog(), container, flattenerConfig.rootTable()));
            TablesState state = TablesState.load(catalog.catalog(), catalog.workers(), container, flattenerConfig,
                    rebuilding, index);
            return new ContainerTables(container, settings, catalog, io, flattenerConfig, config, lock, index,
                    state, analyticalTtl, clock, directory, rebuilding, observer);
        } catch (RuntimeException e) {
            closeAfterFailure(e, index, catalog, io, lock);
            throw e;
        }
    }

    @Override
    public String container() {
        return container;
    }

    /** Where DuckDB spills while it works for these tables (a rebuild's reading of the history, say). */
    public ScratchDirectory scratch() {
        return scratch;
    }

    @Override
    public Checkpoint checkpoint() {
        return checkpoint;
    }

    /** A backfill that was started and has not finished; empty when there is none. */
    public Optional<BackfillState> backfill() {
        String json = carried.get(BackfillState.SUMMARY_KEY);
        if (json == null) {
            return Optional.empty();
        }
        try {
            return Optional.of(JSON.readValue(json, BackfillState.class));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("The backfill state of " + container + " cannot be read: " + json, e);
        }
    }

    /**
     * Starts the one batch of a rebuild: the history's changes, flattened afresh; its commit replaces every flattened
     * table and the dead letters at once, and keeps the history and the checkpoint. See {@link #openForRebuild}.
     */
    public Batch beginRebuild() {
        if (!rebuilding) {
            throw new IllegalStateException("The tables of " + container + " were not opened for a rebuild");
        }
        backfill().ifPresent(unfinished -> {
            throw new IllegalStateException("Cannot rebuild the tables of " + container + ": its backfill has not "
                    + "finished; run `docmirror backfill --container " + container + "` again first");
        });
        return startBatch(CommitKind.REBUILD);
    }

    /**
     * Starts the one batch of a backfill over tables that hold a mirror (see {@link #openForReplacingBackfill}): the
     * store's snapshot of every document; {@link Batch#commitReplacingBackfill} replaces every table with it, the
     * history included, in one commit, so readers see the old mirror until then.
     */
    public Batch beginReplacingBackfill() {
        if (!rebuilding) {
            throw new IllegalStateException("The tables of " + container + " were not opened to be replaced");
        }
        return startBatch(CommitKind.BACKFILL);
    }

    /** Starts the batch of one feed range's backfill snapshot; {@link Batch#commitBackfillRange} ends it. */
    public Batch beginBackfill() {
        return startBatch(CommitKind.BACKFILL);
    }

    /**
     * Finishes a backfill whose every feed range is committed: the change feed starts at {@code checkpoint} (each
     * range's snapshot LSN), and the history holds every change from there on.
     */
    public void finishBackfill(Checkpoint checkpoint) {
        BackfillState state = backfill().filter(BackfillState::isComplete).orElseThrow(() ->
                new IllegalStateException("The backfill of " + container + " has feed ranges left to do"));
        // The backfill's last commit: no change, the feed's starting point and where the history starts.
        Batch batch = startBatch(CommitKind.BACKFILL);
        batch.summaryChanges.put(BackfillState.SUMMARY_KEY, null);
        batch.summaryChanges.put(MirrorSummary.HISTORY_FROM, json(state.rangeLsns()));
        batch.commit(checkpoint);
    }

    /** The flattener configuration the committed tables were made with. */
    public FlattenerConfig flattenerConfigOfTables() {
        return committedSchema == null ? flattenerConfig : SchemaCodec.fromJson(committedSchema).config();
    }

    /** From which LSN per feed range the history holds every change (after a backfill); empty: from the start. */
    public Map<Integer, Long> historyFrom() {
        String json = carried.get(MirrorSummary.HISTORY_FROM);
        if (json == null) {
            return Map.of();
        }
        try {
            Map<Integer, Long> positions = new HashMap<>();
            JSON.readTree(json).fields().forEachRemaining(range -> positions.put(Integer.parseInt(range.getKey()),
                    range.getValue().asLong()));
            return positions;
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("Where the history of " + container + " starts cannot be read: " + json,
                    e);
        }
    }

    /** The history's data files that cannot be read as the table's metadata records them (missing, another size). */
    public List<DataFile> damagedHistoryFiles() {
        TableIdentifier history = table(MirrorTables.history(rootTable()));
        if (!catalog.catalog().tableExists(history)) {
            return List.of();
        }
        return TableChanges.liveFiles(catalog.catalog().loadTable(history), catalog.workers()).stream()
                .filter(file -> FileDamage.of(io, file.location(), file.fileSizeInBytes()).isPresent()).toList();
    }

    /** The lowest {@code _lsn} a history data file holds, from its column statistics. */
    public static long lowestLsn(DataFile historyFile) {
        int lsn = LogTables.HISTORY.findField("_lsn").fieldId();
        ByteBuffer lower = historyFile.lowerBounds() == null ? null : historyFile.lowerBounds().get(lsn);
        if (lower == null) {
            throw new IllegalStateException("The history file " + historyFile.location() + " records no lowest LSN");
        }
        return Conversions.<Long>fromByteBuffer(Types.LongType.get(), lower);
    }

    /** Hands {@code _lsn}, {@code _pk} and {@code id} of each change in the history's other files to {@code sink}. */
    public void forEachIntactHistoryChange(List<DataFile> damaged, HistoryKeySink sink) {
        Table history = catalog.catalog().loadTable(table(MirrorTables.history(rootTable())));
        Schema keys = history.schema().select("_lsn", "_pk", "id");
        for (DataFile file : TableChanges.liveFiles(history, catalog.workers())) {
            if (damaged.stream().anyMatch(bad -> bad.location().equals(file.location()))) {
                continue;
            }
            try (CloseableIterable<Record> records = Parquet.read(history.io().newInputFile(file.location()))
                    .project(keys)
                    .createReaderFunc(fileSchema -> GenericParquetReaders.buildReader(keys, fileSchema))
                    .build()) {
                for (Record record : records) {
                    sink.accept((Long) record.getField("_lsn"), (String) record.getField("_pk"),
                            (String) record.getField("id"));
                }
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot read the history file " + file.location(), e);
            }
        }
    }

    /** Receives one change of the history by its key. */
    @FunctionalInterface
    public interface HistoryKeySink {
        void accept(long lsn, String partitionKey, String id);
    }

    /**
     * Commits a mended history: the damaged files give way to one file of {@code recovered}, the changes they held,
     * read again from the store's change log. The tables stay as they are (a rebuild from the mended history renews
     * them).
     */
    public void repairHistory(List<DataFile> damaged, List<ChangeEvent> recovered) {
        Batch batch = new Batch(batches + 1, CommitKind.REPAIR);
        openBatch = batch;
        try {
            String historyName = MirrorTables.history(rootTable());
            TableChanges history = batch.logTable(historyName, LogTables.HISTORY, MirrorProperties.HISTORY);
            Map<String, DeleteFile> historyVectors = vectors.getOrDefault(historyName, Map.of());
            for (DataFile file : damaged) {
                // Its deletion vector (the analytical TTL's) goes with it.
                history.removeFile(file, historyVectors.get(file.location()));
            }
            for (ChangeEvent event : recovered) {
                history.write(LogTables.history(history.newRecord(), event, event.partitionKey().toString(),
                        DocumentTimestamp.of(event), event.documentJson().orElse(null)));
            }
        } catch (RuntimeException e) {
            throw batch.abort(e);
        }
        batch.commit(checkpoint);
    }

    @Override
    public boolean needsReopening() {
        return outOfStep != null;
    }

    @Override
    public String position() {
        return batches == 0 ? "its start" : "batch " + batches;
    }

    /** How many batches were committed. */
    public long batches() {
        return batches;
    }

    /**
     * The root table's UUID, read from the catalog the first time (a batch that creates the root table) and after a
     * batch that replaced it.
     */
    private String rootUuid() {
        if (rootUuid == null || rebuilding) {
            rootUuid = catalog.catalog().loadTable(table(rootTable())).uuid().toString();
        }
        return rootUuid;
    }

    /**
     * Whether opening the tables rebuilt the document index from their rows: only when it did not reflect their last
     * commit (a crash between the catalog's commit and the index's, a backfill, a lost index).
     */
    public boolean indexRebuilt() {
        return indexRebuilt;
    }

    /** How many documents have rows in the tables now. */
    public long documents() {
        return rows.documents();
    }

    /** The identifier of one of the container's tables. */
    public TableIdentifier table(String name) {
        return MirrorTables.table(container, name);
    }

    public String rootTable() {
        return flattenerConfig.rootTable();
    }

    @Override
    public Batch begin() {
        startBatch(CommitKind.STREAM);
        if (rewriting != null && rewriting.isDone() && !rewriting.isCompletedExceptionally()) {
            // A commit of its own would hold the batches back: this batch's commit takes the compaction in.
            openBatch.compaction = rewriting.join();
            rewriting = null;
        }
        return openBatch;
    }

    /** Opens the next batch, one of {@code kind}; one batch is open at a time. */
    private Batch startBatch(CommitKind kind) {
        if (openBatch != null) {
            throw new IllegalStateException("A batch of " + container + " is open already");
        }
        openBatch = new Batch(batches + 1, kind);
        return openBatch;
    }

    /**
     * Applies the analytical TTL when it is due ({@code mirror.analytical-ttl.interval-ms}); then, after new commits
     * only, compacts the tables that are due and expires old snapshots.
     */
    @Override
    public boolean maintain() {
        return maintain(false);
    }

    /**
     * {@link #maintain}, with a compaction's rewrite on a thread of its own: it is committed at the first call after
     * it is done, so that batches go on being committed meanwhile (the daemon's upkeep).
     */
    @Override
    public boolean maintainInBackground() {
        return maintain(true);
    }

    private boolean maintain(boolean background) {
        if (!orphansRemoved) {
            removeOrphanFiles();
        }
        if (isAnalyticalTtlDue()) {
            applyAnalyticalTtl();
        }
        boolean compacted = false;
        if (rewriting != null && (!background || rewriting.isCompletedExceptionally()
                || (rewriting.isDone() && batches == maintainedAt))) {
            // Rewritten while no batch came (else the next batch's commit takes it in), or failed: reported here.
            CompletableFuture<Compaction> done = rewriting;
            rewriting = null;
            compacted = commitCompaction(awaitRewrite(done));
        }
        if (batches == maintainedAt) {
            return compacted;
        }
        if (rewriting == null) {
            Compaction planned = planCompaction();
            if (planned != null && background && planned.isLocal()) {
                rewriting = CompletableFuture.supplyAsync(() -> {
                    Compaction rewritten = planned.rewrite(scratch);
                    observer.reached(CommitStep.COMPACTION_REWRITTEN, null);
                    return rewritten;
                }, compactor);
            } else if (planned != null) {
                compacted |= commitCompaction(planned.rewrite(scratch));
            }
        }
        SnapshotExpiry.expire(CatalogBatch.of(settings, catalog, io), catalog.catalog().listTables(
                MirrorTables.namespace(container)), readers.oldestHeld(), config, catalog.workers());
        maintainedAt = batches;
        return compacted;
    }

    /**
     * Removes the files under the container's warehouse folder that no table reaches and that are older than
     * {@code mirror.snapshots.keep-ms} ({@link OrphanFiles}): what a crash left, the files of tables a rebuild
     * dropped. The daemon does it at the first upkeep after the tables open; a batch job, before its batch.
     */
    public void removeOrphanFiles() {
        if (openBatch != null) {
            throw new IllegalStateException("Cannot look for orphan files of " + container + " while a batch is open");
        }
        OrphanFiles.removeUnder(catalog.catalog(), io, settings, container, readers, config);
        orphansRemoved = true;
    }

    private Compaction awaitRewrite(CompletableFuture<Compaction> rewrite) {
        try {
            return rewrite.join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException cause ? cause
                    : new IllegalStateException("Cannot compact " + container, e.getCause());
        }
    }

    /** Waits until a compaction being rewritten off the daemon's thread is done (tests: which batch commits it). */
    void awaitCompactionRewrite() {
        if (rewriting != null) {
            rewriting.join();
        }
    }

    /** Due at the first upkeep after the tables open, then every {@code mirror.analytical-ttl.interval-ms}. */
    private boolean isAnalyticalTtlDue() {
        return analyticalTtl.orElse(-1) >= 0 && batches > 0 && (ttlAppliedAt == null
                || !clock.instant().isBefore(ttlAppliedAt.plus(config.analyticalTtlInterval())));
    }

    /**
     * Applies the container's analytical TTL as of the clock's second now, as a commit of its own ({@code ttl}) when
     * anything is past it; the checkpoint stays. Every document whose root row's {@code _ts} is at or before that
     * second minus the TTL loses its rows, root and child, as a streamed delete would remove them, and so does each
     * history entry as old (the history's view leaves those out too). After the commit, Iceberg's own reader returns
     * what the SQL endpoint's views return as of that second.
     *
     * @throws IllegalStateException when the container has no analytical TTL (-1), the tables were opened by name
     *     (without the container's properties), a batch is open, or the tables were opened for a rebuild
     */
    public TtlExpiry applyAnalyticalTtl() {
        if (analyticalTtl.orElse(-1) < 0) {
            throw new IllegalStateException("Cannot apply the analytical TTL of " + container + ": "
                    + (analyticalTtl.isPresent() ? "it has none (-1), its documents are kept forever"
                            : "the tables were opened without the container's properties"));
        }
        if (openBatch != null || rebuilding) {
            throw new IllegalStateException("Cannot apply the analytical TTL of " + container + " while a "
                    + (rebuilding ? "rebuild" : "batch") + " is open");
        }
        ttlAppliedAt = clock.instant();
        long cutoffTs = Math.subtractExact(ttlAppliedAt.getEpochSecond(), analyticalTtl.getAsLong());
        Batch batch = new Batch(batches + 1, CommitKind.TTL);
        openBatch = batch;
        TtlExpiry expiry;
        try {
            expiry = batch.expireUpTo(cutoffTs);
        } catch (RuntimeException e) {
            expiredRows.values().forEach(ExpiredRows::forgetAll);
            throw batch.abort(e);
        }
        if (!expiry.committed()) {
            batch.abort();
            return expiry;
        }
        try {
            batch.commit(checkpoint);
        } catch (RuntimeException e) {
            // The commit abandoned the batch, so the rows found are still there: every file is read again next time.
            expiredRows.values().forEach(ExpiredRows::forgetAll);
            throw e;
        }
        log.info("Applied the analytical TTL of {} ({} s): {} documents and {} history entries up to _ts {} "
                + "deleted in batch {}{}", container, analyticalTtl.getAsLong(), expiry.documents(),
                expiry.historyEntries(), cutoffTs, batches, expiry.complete() ? "" : "; more are due, next upkeep");
        if (!expiry.complete()) {
            // Due again at the next upkeep, between the batches that go on meanwhile.
            ttlAppliedAt = null;
        }
        return expiry;
    }

    /**
     * Compacts, as one commit of its own, the files of each table that its {@link CompactionPlan} names (a tier of
     * {@code mirror.compaction.files} files of a size, files with many deleted rows): their live rows go into new
     * files, and the files and deletion vectors they replace leave the tables (an Iceberg rewrite, so no query
     * result changes).
     *
     * @return whether a table was due
     */
    public boolean compact() {
        if (config.compactionFiles() == 0 || batches == 0) {
            return false;
        }
        if (openBatch != null) {
            throw new IllegalStateException("Cannot compact " + container + " while a batch is open");
        }
        Compaction planned = planCompaction();
        return planned != null && commitCompaction(planned.rewrite(scratch));
    }

    /** The compaction due now, planned from the committed tables; null when none is. */
    private Compaction planCompaction() {
        if (config.compactionFiles() == 0 || batches == 0) {
            return null;
        }
        CatalogBatch committedTables = CatalogBatch.of(settings, catalog, io);
        List<Compaction.TableRewrite> rewrites = new ArrayList<>();
        for (TableIdentifier identifier : catalog.catalog().listTables(MirrorTables.namespace(container))) {
            String name = identifier.name();
            Map<String, DeleteFile> tableVectors = vectors.getOrDefault(name, Map.of());
            Table committed = committedTables.table(identifier);
            // The snapshot's summary counts the files and deleted rows: most tables are not due, and need no
            // manifest read.
            Snapshot current = committed.currentSnapshot();
            if (current == null || (summaryCount(current, "total-data-files") < config.compactionFiles()
                    && summaryCount(current, "total-position-deletes") == 0)) {
                continue;
            }
            CompactionPlan plan = CompactionPlan.of(TableChanges.liveFiles(committed, IcebergWorkers.callerRuns()),
                    tableVectors, config.compactionFiles());
            if (!plan.isDue()) {
                continue;
            }
            List<Compaction.Group> groups = new ArrayList<>();
            for (List<DataFile> files : plan.rewrites()) {
                Map<String, DeleteFile> groupVectors = new HashMap<>();
                files.stream().filter(file -> tableVectors.containsKey(file.location()))
                        .forEach(file -> groupVectors.put(file.location(), tableVectors.get(file.location())));
                groups.add(new Compaction.Group(files, groupVectors, committed.locationProvider().newDataLocation(
                        String.format("%010d-%s-compacted.parquet", batches, UUID.randomUUID()))));
            }
            String keyColumn = flattener.schema().findTable(name).map(schema -> schema.isRoot() ? "id" : "_id")
                    .orElse(null);
            rewrites.add(new Compaction.TableRewrite(name, committed, committed.schema(), keyColumn, plan, groups));
        }
        return rewrites.isEmpty() ? null : new Compaction(rewrites);
    }

    /**
     * Commits a rewritten compaction as a commit of its own (an Iceberg rewrite: no query result changes); returns
     * whether anything was left to commit. A group whose files a batch replaced meanwhile (a widened column) is
     * dropped.
     */
    private boolean commitCompaction(Compaction compaction) {
        Batch batch = new Batch(batches + 1, CommitKind.COMPACTION);
        openBatch = batch;
        boolean any;
        try {
            any = batch.applyCompaction(compaction);
        } catch (RuntimeException e) {
            RuntimeException failure = batch.abort(e);
            try {
                compaction.writtenFiles().forEach(io::deleteFile);
            } catch (RuntimeException notDeleted) {
                failure.addSuppressed(notDeleted);
            }
            throw failure;
        }
        if (!any) {
            batch.abort();
            return false;
        }
        batch.commit(checkpoint);
        return true;
    }

    /** A count Iceberg keeps in a snapshot's summary ({@code total-data-files}, say); 0 when absent. */
    private static long summaryCount(Snapshot snapshot, String key) {
        return Long.parseLong(snapshot.summary().getOrDefault(key, "0"));
    }

    @Override
    public void close() {
        try {
            if (openBatch != null) {
                openBatch.abort();
            }
        } finally {
            try {
                dropRewrite();
                encoders.close();
            } finally {
                try {
                    writers.close();
                } finally {
                    try {
                        scratch.remove();
                        rows.close();
                    } finally {
                        try {
                            catalog.close();
                        } finally {
                            try {
                                io.close();
                            } finally {
                                lock.close();
                            }
                        }
                    }
                }
            }
        }
    }

    /**
     * Waits for a compaction's rewrite that is still running (DuckDB cannot be interrupted midway) and deletes what
     * it wrote: it was not committed, and the next open plans again.
     */
    private void dropRewrite() {
        compactor.shutdown();
        if (rewriting == null) {
            return;
        }
        try {
            rewriting.join().writtenFiles().forEach(io::deleteFile);
        } catch (CompletionException e) {
            log.warn("The compaction of {} that was being rewritten when its tables closed failed; nothing of it was "
                    + "committed", container, e.getCause());
        } finally {
            rewriting = null;
        }
    }

    /** Whether two deletion vectors are the same blob (null: none). */
    private static boolean sameVector(DeleteFile vector, DeleteFile other) {
        return other != null && vector.location().equals(other.location())
                && Objects.equals(vector.contentOffset(), other.contentOffset());
    }

    /** The changes of one commit. Either {@link #commit} or {@link #abort} ends it. */
    public final class Batch implements MirrorTarget.Batch {
        private final long number;
        /** What kind of commit the batch is. */
        private final CommitKind kind;
        /** Root summary entries the batch sets (null: removes) among those that carry on. */
        private final Map<String, String> summaryChanges = new HashMap<>();
        private final CatalogBatch catalogBatch = CatalogBatch.of(settings, catalog, io, observer);
        private final Map<String, TableChanges> tables = new LinkedHashMap<>();
        private final Map<String, RowRecords> records = new HashMap<>();
        /** The documents whose rows the batch changed: where their rows are after it (empty: none). */
        private final Map<String, long[]> changedRows = new HashMap<>();
        /** Documents the batch changed whose committed rows are still to be deleted ({@link #deleteCommittedRows}). */
        private final List<String> committedRowsToDelete = new ArrayList<>();
        /** How many more documents have rows than before the batch (negative: fewer). */
        private long documentsAdded;
        /**
         * The data files a compaction rewrote with DuckDB, by location: where their rows went, which the documents'
         * places follow when the batch commits.
         */
        private final Map<String, DocumentIndex.Moved> moves = new HashMap<>();
        /** A compaction rewritten off the daemon's thread that the batch's commit takes in; null when none. */
        private Compaction compaction;
        /** The compaction the batch put in place of its files ({@link #applyCompaction}); null when none. */
        private Compaction applied;
        private long events;
        private long batchLastEventTs;

        private Batch(long number, CommitKind kind) {
            if (outOfStep != null) {
                throw new IllegalStateException("Cannot begin a batch of " + container + ": " + outOfStep
                        + "; open the container's tables again to go on from what the catalog holds");
            }
            if (!documentsIndexed && kind.indexesDocuments()) {
                throw new IllegalStateException("The tables of " + container + " were backfilled here and do not "
                        + "know where the backfilled documents' rows are; open them again for a " + kind.summaryName()
                        + " batch");
            }
            this.number = number;
            this.kind = kind;
        }

        private boolean indexesDocuments() {
            return kind.indexesDocuments();
        }

        private boolean rebuild() {
            return kind == CommitKind.REBUILD;
        }

        /** Whether the batch replaces the tables (a rebuild, or a backfill over a mirror) rather than adds to them. */
        private boolean replacing() {
            return rebuilding && kind.mayReplaceTables();
        }

        /**
         * Commits a backfill over a mirror ({@link #beginReplacingBackfill}), whose feed ranges' snapshots were taken
         * at {@code rangeLsns}: its tables replace the mirror's, and the change feed starts at those LSNs.
         */
        public Committed commitReplacingBackfill(Map<Integer, Long> rangeLsns, Checkpoint checkpoint) {
            summaryChanges.put(BackfillState.SUMMARY_KEY, null);
            summaryChanges.put(MirrorSummary.HISTORY_FROM, json(rangeLsns));
            return commit(checkpoint);
        }

        /**
         * Commits the batch as one more feed range of a backfill, whose snapshot was taken at {@code lsn}. The
         * range's rows are visible from now on; the change feed starts when the backfill finishes.
         */
        public Committed commitBackfillRange(int feedRange, long lsn, int feedRanges) {
            BackfillState state = backfill().orElse(BackfillState.start(feedRanges))
                    .withRange(feedRange, lsn, events);
            summaryChanges.put(BackfillState.SUMMARY_KEY, json(state));
            return commit(checkpoint);
        }

        /**
         * Deletes in the batch the rows the analytical TTL expires: those of each document whose root row's
         * {@code _ts} is at or before {@code cutoffTs}, and the history entries as old.
         */
        private TtlExpiry expireUpTo(long cutoffTs) {
            // A commit deletes at most about a batch of documents, and of history entries: the first expiry of a
            // large container takes several, one at each upkeep, so that what a commit holds stays bounded.
            long budget = config.batchMaxEvents();
            int[] documents = {0};
            ExpiredRows.Found root = new ExpiredRows.Found(0, true);
            TableIdentifier rootIdentifier = table(rootTable());
            if (catalogBatch.exists(rootIdentifier)) {
                // The same path as a streamed delete: the root row and every child row the document has go. A
                // document has one live root row, so each comes once.
                root = expiredRows.computeIfAbsent(rootTable(), name -> new ExpiredRows()).find(
                        catalogBatch.table(rootIdentifier), catalog.workers(), cutoffTs, List.of("id", "_pk"), budget,
                        (file, position, row) -> {
                            replaceRows(DocumentIndex.key((String) row.getField("id"), (String) row.getField("_pk")),
                                    new long[0]);
                            documents[0]++;
                        });
            }
            String historyName = MirrorTables.history(rootTable());
            TableIdentifier history = table(historyName);
            int[] historyEntries = {0};
            ExpiredRows.Found historyFound = new ExpiredRows.Found(0, true);
            if (catalogBatch.exists(history)) {
                historyFound = expiredRows.computeIfAbsent(historyName, name -> new ExpiredRows()).find(
                        catalogBatch.table(history), catalog.workers(), cutoffTs, List.of(), budget,
                        (file, position, row) -> {
                            logTable(historyName, LogTables.HISTORY, MirrorProperties.HISTORY).delete(file, position);
                            historyEntries[0]++;
                        });
            }
            return new TtlExpiry(cutoffTs, documents[0], historyEntries[0],
                    root.filesRead() + historyFound.filesRead(), root.complete() && historyFound.complete());
        }

        /**
         * Puts a compaction into the batch: each group's new file in place of its files, with the rows deleted in
         * them since the compaction was planned (by earlier batches or by this one) deleted in the new file; a group
         * not rewritten yet (its files are on an object store) is copied row by row now. A group whose files left
         * the table meanwhile (a widened column's copy, in an earlier batch or this one) is dropped. Returns whether
         * any group was left to commit.
         */
        private boolean applyCompaction(Compaction compaction) {
            deleteCommittedRows();
            boolean any = false;
            for (Compaction.TableRewrite rewrite : compaction.tables()) {
                Table committed = catalogBatch.table(table(rewrite.name()));
                Set<String> live = new HashSet<>();
                TableChanges.liveFiles(committed, IcebergWorkers.callerRuns())
                        .forEach(file -> live.add(file.location()));
                TableChanges table = tables.get(rewrite.name());
                if (table != null) {
                    table.leavingFiles().forEach(live::remove);
                }
                Map<String, DeleteFile> tableVectors = vectors.getOrDefault(rewrite.name(), Map.of());
                for (Compaction.Group group : rewrite.groups()) {
                    DuckDbRewrite.Rewritten rewritten = compaction.rewritten(group);
                    if (!group.files().stream().allMatch(file -> live.contains(file.location()))) {
                        log.info("A batch replaced files of {} while they were compacted; the compaction of {} "
                                + "files is dropped", rewrite.name(), group.files().size());
                        if (rewritten != null) {
                            io.deleteFile(group.location());
                        }
                        continue;
                    }
                    if (table == null) {
                        table = open(rewrite.name(), committed.schema(), Map.of());
                        if (kind == CommitKind.COMPACTION) {
                            table.rewriteOnly();
                        }
                    }
                    any = true;
                    if (rewritten == null) {
                        new RowCopier(table, rewrite.keyColumn(), rows, this::moved).compact(group.files(),
                                tableVectors);
                        continue;
                    }
                    table.addRewritten(rewritten.file());
                    for (DataFile file : group.files()) {
                        int[] moved = rewritten.newPositions().get(file.location());
                        TableChanges changes = table;
                        LongConsumer deleteMovedRow = position -> {
                            int to = moved[Math.toIntExact(position)];
                            if (to >= 0) {
                                changes.delete(group.location(), to);
                            }
                        };
                        DeleteFile vector = tableVectors.get(file.location());
                        if (vector != null && !sameVector(vector, group.vectorsAtPlan().get(file.location()))) {
                            DeletionVectors.read(io, vector).forEach(deleteMovedRow);
                        }
                        table.forEachDeletedInBatch(file.location(), deleteMovedRow);
                        table.removeFile(file, vector);
                    }
                    if (rewrite.keyColumn() != null) {
                        rewritten.newPositions().forEach((file, positions) -> moves.put(file,
                                new DocumentIndex.Moved(rewrite.name(), group.location(), positions)));
                    }
                }
            }
            if (any) {
                applied = compaction;
            }
            return any;
        }

        @Override
        public long events() {
            return events;
        }

        @Override
        public void add(ChangeEvent event) {
            requireNonNull(event, "event is null");
            events++;
            batchLastEventTs = Math.max(batchLastEventTs, event.ts());
            String partitionKey = event.partitionKey().toString();
            String key = indexesDocuments() ? DocumentIndex.key(event.id(), partitionKey) : null;
            if (event.operation() == Operation.DELETE) {
                history(event, partitionKey, event.ts() / 1000, null);
                // A TTL expiry in the store leaves the mirror's rows: the analytical TTL decides how long they stay.
                if (!event.ttlExpired() && key != null) {
                    replaceRows(key, new long[0]);
                }
                return;
            }
            byte[] json = event.documentJson().orElseThrow();
            FlattenResult result;
            try {
                result = flattener.flatten(new SourceDocument(container, partitionKey, event.lsn(), json));
            } catch (FlattenException e) {
                log.warn("Document {} of {} at LSN {} cannot be mirrored; it goes to the dead letters: {}",
                        event.id(), container, event.lsn(), e.getMessage(), e);
                history(event, partitionKey, event.ts() / 1000, json);
                deadLetter(new DeadLetter(container, event.id(), event.lsn(), e.getMessage(),
                        new String(json, StandardCharsets.UTF_8)));
                return;
            }
            Object ts = result.rows().isEmpty() ? null : result.rows().get(0).value("_ts");
            history(event, partitionKey, ts instanceof Long seconds ? seconds : event.ts() / 1000, json);
            if (result.deadLetter().isPresent()) {
                deadLetter(result.deadLetter().get());
                return;
            }
            applySchemaChanges(result.schemaChanges());
            if (key == null) {
                for (Row row : result.rows()) {
                    flattenedTable(row.table()).write(row, records.get(row.table().name()));
                }
                return;
            }
            long[] places = new long[result.rows().size()];
            for (int index = 0; index < places.length; index++) {
                Row row = result.rows().get(index);
                TableChanges table = flattenedTable(row.table());
                long position = table.write(row, records.get(row.table().name()));
                places[index] = rows.place(table.name(), table.currentFile(), position);
            }
            replaceRows(key, places);
        }

        /**
         * The document's rows become {@code places}; the rows it had go. Rows it had earlier in the batch go now; its
         * committed rows are looked up later with other documents' ({@link #deleteCommittedRows}).
         */
        private void replaceRows(String key, long[] places) {
            if (rebuild()) {
                // A rebuild replays the whole history in one batch: its documents' rows go straight into the index,
                // emptied and unmarked for it, rather than into a map of the whole container.
                deleteRows(rows.set(key, places));
                return;
            }
            long[] previous = changedRows.put(key, places);
            if (previous == null) {
                committedRowsToDelete.add(key);
                documentsAdded += places.length > 0 ? 1 : 0;
                if (committedRowsToDelete.size() >= LOOKUPS_AT_ONCE) {
                    deleteCommittedRows();
                }
            } else {
                deleteRows(previous);
                documentsAdded += (places.length > 0 ? 1 : 0) - (previous.length > 0 ? 1 : 0);
            }
        }

        /**
         * Deletes the committed rows of the documents the batch changed since the last call: looked up together, which
         * costs the index a third of looking each up as it comes. Runs before anything reads which rows the batch
         * deleted (a widening's or a compaction's copy, the commit).
         */
        private void deleteCommittedRows() {
            if (committedRowsToDelete.isEmpty()) {
                return;
            }
            // Taken first: deleting opens tables, and opening one evolves it, which comes back here.
            List<String> documents = List.copyOf(committedRowsToDelete);
            committedRowsToDelete.clear();
            for (long[] committed : rows.of(documents)) {
                deleteRows(committed);
                documentsAdded -= committed.length > 0 ? 1 : 0;
            }
        }

        private void deleteRows(long[] places) {
            for (long place : places) {
                DocumentIndex.DataFileRef file = rows.file(place);
                flattenedTable(file.table()).delete(file.location(), DocumentIndex.position(place));
            }
        }

        private void history(ChangeEvent event, String partitionKey, long documentTs, byte[] documentJson) {
            if (rebuild()) {
                // The history is what a rebuild replays: it stays as it is.
                return;
            }
            TableChanges history = logTable(MirrorTables.history(rootTable()), LogTables.HISTORY,
                    MirrorProperties.HISTORY);
            history.write(LogTables.history(history.newRecord(), event, partitionKey, documentTs,
                    documentJson));
        }

        private void deadLetter(DeadLetter deadLetter) {
            TableChanges deadLetters = logTable(MirrorTables.deadLetters(rootTable()), LogTables.DEAD_LETTERS,
                    MirrorProperties.DEAD_LETTERS);
            deadLetters.write(LogTables.deadLetter(deadLetters.newRecord(), deadLetter));
        }

        /** Makes the Iceberg tables' schemas hold what the flattener's schema holds now. */
        private void applySchemaChanges(List<SchemaChange> changes) {
            for (SchemaChange change : changes) {
                TableSchema schema = flattener.schema().findTable(change.table()).orElseThrow();
                TableChanges table = tables.get(schema.name());
                if (table == null) {
                    flattenedTable(schema);
                } else if (evolve(table, schema)) {
                    table.roll();
                    records.put(schema.name(), new RowRecords(schema, table.table().schema()));
                }
            }
        }

        /** Brings the Iceberg table's schema to the flattener's ({@link SchemaEvolution}). */
        private boolean evolve(TableChanges table, TableSchema schema) {
            deleteCommittedRows();
            RowCopier copier = new RowCopier(table, schema.isRoot() ? "id" : "_id", rows, this::moved);
            return SchemaEvolution.evolve(table, schema, copier, vectors.getOrDefault(table.name(), Map.of()));
        }

        /** A row of a document moved (a widening copied it): its place follows. */
        private void moved(String key, long from, long to) {
            long[] places = (changedRows.containsKey(key) ? changedRows.get(key) : rows.of(key)).clone();
            for (int index = 0; index < places.length; index++) {
                if (places[index] == from) {
                    places[index] = to;
                }
            }
            if (rebuild()) {
                rows.set(key, places);
            } else {
                changedRows.put(key, places);
            }
        }

        /** The batch's changes of a flattened table, creating the table when the catalog does not have it. */
        private TableChanges flattenedTable(TableSchema schema) {
            TableChanges table = tables.get(schema.name());
            if (table == null) {
                Map<String, String> properties = new HashMap<>();
                properties.put(MirrorProperties.TABLE_ROLE, schema.isRoot() ? MirrorProperties.ROOT
                        : MirrorProperties.CHILD);
                properties.put(MirrorProperties.JSON_PATH, schema.jsonPath().toString());
                schema.parent().ifPresent(parent -> properties.put(MirrorProperties.PARENT, parent));
                properties.put(MirrorProperties.COLUMN_ROLES, columnRoles(schema));
                table = open(schema.name(), IcebergSchemas.of(schema), properties);
                evolve(table, schema);
                records.put(schema.name(), new RowRecords(schema, table.table().schema()));
            }
            return table;
        }

        private TableChanges flattenedTable(String name) {
            return flattenedTable(flattener.schema().findTable(name).orElseThrow(() -> new IllegalStateException(
                    "The mirror of " + container + " has rows in table " + name + ", which its schema lacks")));
        }

        private TableChanges logTable(String name, Schema schema, String role) {
            TableChanges table = tables.get(name);
            return table != null ? table : open(name, schema, Map.of(MirrorProperties.TABLE_ROLE, role));
        }

        /** The batch's changes of a table; a table the catalog does not have is created with {@code properties}. */
        private TableChanges open(String name, Schema schema, Map<String, String> properties) {
            TableIdentifier identifier = table(name);
            boolean exists = catalogBatch.exists(identifier);
            // A rebuild replays the history, which it keeps; a backfill over a mirror replaces it too.
            boolean replaced = exists && replacing() && !(rebuild() && name.equals(MirrorTables.history(rootTable())));
            Table base = exists && !replaced ? catalogBatch.table(identifier) : null;
            Transaction transaction;
            if (replaced) {
                transaction = catalogBatch.replace(identifier, schema, tableProperties(properties));
            } else if (exists) {
                transaction = base.newTransaction();
            } else {
                transaction = catalogBatch.create(identifier, schema,
                        MirrorTables.tableLocation(settings.warehouse(), container, name), tableProperties(properties));
            }
            TableChanges table = new TableChanges(identifier, transaction, base,
                    replaced ? Map.of() : vectors.getOrDefault(name, Map.of()), number, catalog.workers(), encoders,
                    writers, !kind.streamed());
            tables.put(name, table);
            return table;
        }

        /**
         * Makes the batch visible, durably, as one commit of every table it changed, ending at {@code checkpoint}. On
         * failure nothing becomes visible: the batch is abandoned and the next one starts from the last commit.
         */
        @Override
        public Committed commit(Checkpoint checkpoint) {
            requireNonNull(checkpoint, "checkpoint is null");
            if (!checkpoint.historyFrom().isEmpty()) {
                // A source that loaded the container's current documents before streaming: where the history starts.
                summaryChanges.put(MirrorSummary.HISTORY_FROM, json(checkpoint.historyFrom()));
            }
            String schema;
            String schemaLocation;
            long eventTs;
            try {
                deleteCommittedRows();
                if (compaction != null) {
                    applyCompaction(compaction);
                }
                TableChanges root = flattenedTable(flattener.schema().root());
                if (replacing()) {
                    replaceTheRest();
                }
                String conflicts = json(ConflictEntry.of(flattener.schema()));
                Map<String, String> recorded = root.table().properties();
                // Tables opened by name do not know the container's TTL: the recorded one stays.
                String ttl = analyticalTtl.isPresent() ? Long.toString(analyticalTtl.getAsLong())
                        : recorded.getOrDefault(MirrorProperties.ANALYTICAL_TTL, "-1");
                if (!conflicts.equals(recorded.get(MirrorProperties.CONFLICTS))
                        || !ttl.equals(recorded.get(MirrorProperties.ANALYTICAL_TTL))) {
                    root.transaction().updateProperties().set(MirrorProperties.CONFLICTS, conflicts)
                            .set(MirrorProperties.ANALYTICAL_TTL, ttl).commit();
                }
                schema = SchemaCodec.toJson(flattener.schema());
                schemaLocation = schema.equals(committedSchema) ? committedSchemaLocation : writeSchema(schema);
                eventTs = Math.max(lastEventTs, batchLastEventTs);
                for (TableChanges table : tables.values()) {
                    Map<String, String> summary = new LinkedHashMap<>();
                    summary.put(MirrorSummary.BATCH, Long.toString(number));
                    if (table == root) {
                        summary.put(MirrorSummary.COMMIT_KIND, kind.summaryName());
                        summary.put(MirrorSummary.CHECKPOINT, JSON.writeValueAsString(checkpoint));
                        summary.put(MirrorSummary.POSITIONS, JSON.writeValueAsString(checkpoint.positions()));
                        summary.put(MirrorSummary.FLATTENER_SCHEMA, schemaLocation);
                        summary.put(MirrorSummary.LAST_EVENT_TS, Long.toString(eventTs));
                        carriedAfter().forEach(summary::put);
                    }
                    table.stage(summary, observer);
                }
            } catch (JsonProcessingException e) {
                throw abort(new IllegalStateException("Cannot write the checkpoint of " + container, e));
            } catch (RuntimeException e) {
                throw abort(e);
            }
            if (indexesDocuments() && !rebuild()) {
                try {
                    List<String> leaving = new ArrayList<>();
                    tables.values().forEach(table -> leaving.addAll(table.leavingFiles()));
                    rows.prepare(number, changedRows, documentsAdded, moves, leaving);
                    observer.reached(CommitStep.INDEX_PREPARED, null);
                } catch (RuntimeException e) {
                    throw abort(e);
                }
            }
            // The point of no return: once the request is sent, the batch may be in the catalog whatever comes back.
            try {
                catalogBatch.commit();
            } catch (CommitFailedException e) {
                // The catalog refused the batch (a table moved since the batch read it): nothing of it is reachable.
                throw abort(e);
            } catch (RuntimeException e) {
                throw outOfStep(e, "its outcome is unknown (" + e.getMessage() + ")");
            }
            try {
                int files = 0;
                long bytes = 0;
                for (TableChanges table : tables.values()) {
                    vectors.put(table.name(), table.committedVectors());
                    files += table.addedFiles().size();
                    bytes += table.addedFiles().stream().mapToLong(DataFile::fileSizeInBytes).sum();
                }
                if (rebuild()) {
                    rows.mark(DocumentIndex.marker(rootUuid(), number));
                } else if (indexesDocuments()) {
                    rows.apply(number, DocumentIndex.marker(rootUuid(), number));
                } else {
                    // A backfill's rows are not in the index: unmarked, it is rebuilt when the tables open.
                    rows.unmark();
                    tables.values().forEach(table -> table.leavingFiles().forEach(rows::forget));
                }
                committedSchema = schema;
                committedSchemaLocation = schemaLocation;
                Map<String, String> after = carriedAfter();
                carried.clear();
                carried.putAll(after);
                ContainerTables.this.checkpoint = checkpoint;
                if (replacing()) {
                    vectors.keySet().retainAll(tables.keySet());
                    rebuilding = false;
                }
                lastEventTs = eventTs;
                batches = number;
                openBatch = null;
                if (!indexesDocuments()) {
                    documentsIndexed = false;
                }
                observer.reached(CommitStep.BATCH_COMMITTED, null);
                if (applied != null) {
                    log.debug("Compacted {} in batch {}: {}", container, batches,
                            String.join("; ", applied.describe()));
                }
                return new Committed(position(), files, bytes, applied != null);
            } catch (RuntimeException e) {
                throw outOfStep(e, "was committed, but recording it in this process failed");
            }
        }

        /**
         * Ends a batch whose commit request was sent and then failed without the catalog saying it refused the batch
         * (a REST catalog's {@code CommitStateUnknownException}, a timeout, a lost answer), or whose bookkeeping
         * failed once the catalog took it. The batch may be in the catalog, so none of its files may be deleted: a
         * committed snapshot would point at missing files (Iceberg's own {@code SnapshotProducer} keeps them too).
         * What this process holds (checkpoint, document index, schema) may now differ from the catalog, so the tables
         * refuse every further batch until opened again, which reads what the catalog holds: the batch is then either
         * there, and the source goes on after it, or not, and its files are orphans that the opening removes once
         * they are old enough ({@code mirror.snapshots.keep-ms}).
         */
        private IllegalStateException outOfStep(RuntimeException failure, String what) {
            openBatch = null;
            outOfStep = "batch " + number + " " + what;
            return new IllegalStateException("Batch " + number + " of " + container + " " + what + ": its files are "
                    + "kept, and the container's tables must be opened again to learn from the catalog whether it "
                    + "landed", failure);
        }

        /**
         * In a batch that replaces the tables, what its changes did not reach: the dead letters (and, but in a
         * rebuild, the history) are replaced, emptied when no change went there, and a flattened table the new
         * schema lacks is dropped.
         */
        private void replaceTheRest() {
            String deadLetters = MirrorTables.deadLetters(rootTable());
            if (!tables.containsKey(deadLetters) && catalogBatch.exists(table(deadLetters))) {
                logTable(deadLetters, LogTables.DEAD_LETTERS, MirrorProperties.DEAD_LETTERS);
            }
            String history = MirrorTables.history(rootTable());
            if (!rebuild() && !tables.containsKey(history) && catalogBatch.exists(table(history))) {
                logTable(history, LogTables.HISTORY, MirrorProperties.HISTORY);
            }
            for (TableIdentifier identifier : catalog.catalog().listTables(MirrorTables.namespace(container))) {
                String role = catalog.catalog().loadTable(identifier).properties()
                        .getOrDefault(MirrorProperties.TABLE_ROLE, "");
                boolean flattened = role.equals(MirrorProperties.ROOT) || role.equals(MirrorProperties.CHILD);
                if (flattened && flattener.schema().findTable(identifier.name()).isEmpty()) {
                    catalogBatch.drop(identifier);
                }
            }
        }

        /** The carried summary entries after this batch. */
        private Map<String, String> carriedAfter() {
            Map<String, String> after = new HashMap<>(carried);
            summaryChanges.forEach((key, value) -> {
                if (value == null) {
                    after.remove(key);
                } else {
                    after.put(key, value);
                }
            });
            return after;
        }

        private RuntimeException abort(RuntimeException failure) {
            try {
                abort();
            } catch (RuntimeException cleanup) {
                failure.addSuppressed(cleanup);
            }
            return failure;
        }

        /** Abandons the batch: its files are removed, and the flattener goes back to the committed schema. */
        @Override
        public void abort() {
            openBatch = null;
            // The catalog did not take the batch (or it was never sent): what the index recorded for it goes.
            rows.discard(number);
            flattener = committedSchema == null || rebuilding
                    ? Flattener.create(flattenerConfig)
                    : new Flattener(SchemaCodec.fromJson(committedSchema, flattenerConfig));
            RuntimeException failure = null;
            for (TableChanges table : tables.values()) {
                try {
                    table.abandon();
                } catch (RuntimeException e) {
                    // Its file failed to encode or close: every table's files are removed all the same.
                    if (failure == null) {
                        failure = e;
                    } else {
                        failure.addSuppressed(e);
                    }
                }
                for (String file : table.writtenFiles()) {
                    rows.forget(file);
                    io.deleteFile(file);
                }
            }
            if (compaction != null) {
                // Its files, taken in or not: the next upkeep plans the compaction again.
                compaction.writtenFiles().forEach(io::deleteFile);
            }
            if (failure != null) {
                throw failure;
            }
        }

        private String writeSchema(String schema) {
            String location = MirrorTables.containerLocation(settings.warehouse(), container) + "/_flattener/"
                    + String.format("%010d-%s.json", number, UUID.randomUUID());
            OutputFile file = io.newOutputFile(location);
            try (PositionOutputStream out = file.create()) {
                out.write(schema.getBytes(StandardCharsets.UTF_8));
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot write the flattener schema " + location, e);
            }
            observer.reached(CommitStep.FLATTENER_SCHEMA_WRITTEN, null);
            return location;
        }
    }

    /** A new table's properties: the mirror's Parquet options and {@code own}. */
    private Map<String, String> tableProperties(Map<String, String> own) {
        Map<String, String> properties = new HashMap<>(own);
        properties.put(TableProperties.PARQUET_COMPRESSION,
                config.parquet().compression().name().toLowerCase(Locale.ROOT));
        properties.put(TableProperties.PARQUET_ROW_GROUP_SIZE_BYTES, Long.toString(config.parquet().rowGroupBytes()));
        properties.put(TableProperties.PARQUET_PAGE_SIZE_BYTES, Integer.toString(config.parquet().pageBytes()));
        return properties;
    }

    /** {@link MirrorProperties#COLUMN_ROLES} of a table. */
    static String columnRoles(TableSchema schema) {
        Map<String, String> roles = new LinkedHashMap<>();
        schema.columns().forEach(column -> roles.put(column.name(), column.role().catalogName()));
        return json(roles);
    }

    private static String json(Object value) {
        try {
            return JSON.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("Cannot write " + value + " as JSON", e);
        }
    }

    private static void closeAfterFailure(RuntimeException failure, DocumentIndex index, CatalogConnection catalog,
            FileIO io, WriterLock lock) {
        for (AutoCloseable resource : new AutoCloseable[] {index, catalog, io, lock}) {
            if (resource == null) {
                continue;
            }
            try {
                resource.close();
            } catch (Exception e) {
                failure.addSuppressed(e);
            }
        }
    }

    static Checkpoint checkpointOf(Snapshot snapshot) {
        String json = snapshot == null ? null : snapshot.summary().get(MirrorSummary.CHECKPOINT);
        if (json == null) {
            return Checkpoint.NONE;
        }
        try {
            return JSON.readValue(json, Checkpoint.class);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("The snapshot " + snapshot.snapshotId() + " holds a checkpoint that "
                    + "cannot be read: " + json, e);
        }
    }
}
