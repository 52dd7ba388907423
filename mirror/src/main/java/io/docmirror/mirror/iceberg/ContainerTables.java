package io.docmirror.mirror.iceberg;

import io.docmirror.flatten.ContainerSchema;
import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.flatten.SchemaPlan;
import io.docmirror.flatten.TableSchema;
import io.docmirror.layout.CatalogConnection;
import io.docmirror.layout.CatalogSettings;
import io.docmirror.layout.EarlierLayout;
import io.docmirror.layout.FileDamage;
import io.docmirror.layout.MirrorCatalog;
import io.docmirror.layout.MirrorLayout;
import io.docmirror.layout.MirrorProperties;
import io.docmirror.layout.MirrorSummary;
import io.docmirror.layout.MirrorTables;
import io.docmirror.layout.ReaderLeases;
import io.docmirror.mirror.DirectoryTree;
import io.docmirror.mirror.DocumentTimestamp;
import io.docmirror.mirror.MirrorConfig;
import io.docmirror.mirror.MirrorErrorCode;
import io.docmirror.mirror.MirrorException;
import io.docmirror.mirror.MirrorTarget;
import io.docmirror.mirror.ScratchDirectory;
import io.docmirror.mirror.WriterLock;
import io.docmirror.mirror.source.Checkpoint;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.changelog.ChangeEvent;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.parquet.Parquet;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Types;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ExecutorService;
import java.util.function.BiConsumer;

import static io.docmirror.flatten.SystemColumn.ID;
import static io.docmirror.flatten.SystemColumn.LSN;
import static io.docmirror.flatten.SystemColumn.PARTITION_KEY;
import static java.util.Objects.requireNonNull;

/**
 * One container's mirror as Apache Iceberg tables (format version 3) in a catalog: the root table, a table per array
 * of objects, the history and the dead letters (names: {@link MirrorTables}).
 *
 * <p>A batch of changes ({@link ContainerBatch}) becomes one commit across every table it touches: new rows go into
 * new data files, and the rows an update or a delete replaces get deletion vectors, found through
 * {@link DocumentIndex}, which knows, on disk, where each document's current rows are ({@link BatchWriter}). The root
 * table's snapshot summary holds the feed checkpoint the batch ends at and the flattener's schema
 * ({@link MirrorSummary}), so a restart resumes exactly where the last commit ended, with the same flattening
 * decisions ({@link BatchCommit}). What a commit does depends on its kind ({@link CommitKind}). Only one process
 * writes a container's tables at a time ({@link WriterLock}).
 *
 * <p>Between batches ({@link #maintain}, {@link TableUpkeep}) the container's analytical TTL is applied as a commit of
 * its own, so that every engine reading the tables leaves out expired documents, not only the SQL endpoint's views;
 * tables are compacted, old snapshots expire, and what a crash left is removed.
 */
public final class ContainerTables implements MirrorTarget {
    /** The document index's directory, in the container's directory. */
    private static final String DOCUMENT_INDEX = "document-index";
    /** The clock of tables opened without an analytical TTL (-1), which never read it. */
    private static final Clock NO_TTL_CLOCK = Clock.systemUTC();

    private final ContainerResources resources;
    private final CommittedTables committed;
    private final TableUpkeep upkeep;
    private final WriterLock lock;
    private final boolean indexRebuilt;
    private ContainerBatch openBatch;

    private ContainerTables(ContainerResources resources, CommittedTables committed, WriterLock lock,
            boolean indexRebuilt, ReaderLeases readers, Clock clock) {
        this.resources = resources;
        this.committed = committed;
        this.lock = lock;
        this.indexRebuilt = indexRebuilt;
        this.upkeep = new TableUpkeep(resources, committed, this::startBatch, () -> openBatch != null, readers,
                clock);
    }

    /**
     * Opens (or starts) the tables of {@code container} in the embedded catalog of {@code mirrorDirectory}.
     *
     * @throws MirrorException with {@code MIRROR_LOCKED} when another process mirrors the container
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
                false, true, observer);
    }

    /**
     * Opens the committed tables of {@code container} to rebuild them from their history under
     * {@code flattenerConfig}, which may differ from the configuration their schema was made with.
     */
    public static ContainerTables openForRebuild(Path mirrorDirectory, String container,
            FlattenerConfig flattenerConfig, MirrorConfig config) {
        ContainerTables tables = open(mirrorDirectory, container, null, OptionalLong.empty(), NO_TTL_CLOCK,
                flattenerConfig, config, true, true, CommitObserver.NONE);
        if (tables.batches() == 0) {
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
                OptionalLong.of(container.analyticalTtl()), clock, flattenerConfig, config, true, true,
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
                OptionalLong.of(container.analyticalTtl()), clock, flattenerConfig, config, false, true,
                CommitObserver.NONE);
    }

    /**
     * Opens (or starts) the tables of {@code container} for the committer of a scaled-out stream, whose writers keep
     * where each document's rows are ({@link #beginShardedBatch}): the mirror's own document index is removed, so
     * that a single mirror taking the container over rebuilds it from the tables.
     *
     * @throws MirrorException with {@code MIRROR_LOCKED} when another process mirrors the container
     */
    public static ContainerTables openForShardedStream(Path mirrorDirectory, String container,
            FlattenerConfig flattenerConfig, MirrorConfig config) {
        return open(mirrorDirectory, container, null, OptionalLong.empty(), NO_TTL_CLOCK, flattenerConfig, config,
                false, false, CommitObserver.NONE);
    }

    /**
     * Refuses a new run of a scaled-out stream on tables whose last commit left changes for its writers to apply (a
     * restored run applies them): the commit's feed position passes them.
     *
     * @throws MirrorException with {@code REFUSED_CONFIGURATION}
     */
    public void refuseWhileChangesAreHeld() {
        ShardedBatch.refuseWhileChangesAreHeld(resources.catalog().catalog(), container(), resources.rootTable(),
                "a new run of the stream");
    }

    /** Removes the container's document index from disk, if it has one, and stands in for it. */
    private static DocumentIndex unkeptIndex(Path containerDirectory, String container) {
        Path index = containerDirectory.resolve(DOCUMENT_INDEX);
        if (Files.exists(index)) {
            try {
                DirectoryTree.remove(index);
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot remove the document index " + index + " of " + container
                        + ", which a scaled-out stream's commits would leave behind", e);
            }
        }
        return new UnkeptDocumentIndex(container);
    }

    /**
     * @param analyticalTtl the container's analytical TTL in seconds (-1: forever); empty: the recorded one stays
     * @param clock what the analytical TTL counts back from
     * @param rebuilding true to rebuild the tables under {@code flattenerConfig}: the committed schema, made under
     *     another configuration perhaps, is not taken on, and where the documents' rows are is not read
     * @param indexKept false for a scaled-out stream's committer: no document index ({@link UnkeptDocumentIndex})
     * @param observer told of each step of every commit ({@link CommitObserver#NONE} but in a crash test)
     */
    private static ContainerTables open(Path mirrorDirectory, String container, String resourceId,
            OptionalLong analyticalTtl, Clock clock, FlattenerConfig flattenerConfig, MirrorConfig config,
            boolean rebuilding, boolean indexKept, CommitObserver observer) {
        EarlierLayout.refuse(mirrorDirectory, container);
        Path directory = MirrorLayout.containerDirectory(mirrorDirectory, container);
        WriterLock lock = WriterLock.take(directory, container);
        CatalogSettings settings = config.catalog().settings(mirrorDirectory);
        List<AutoCloseable> opened = new ArrayList<>(List.of(lock));
        try {
            CatalogConnection catalog = MirrorCatalog.open(settings);
            opened.add(0, catalog);
            // The catalog's own file access (local, or an object store's): every file the mirror writes, reads or
            // removes outside Iceberg's commit goes through it too.
            FileIO io = MirrorCatalog.openFileIO(settings);
            opened.add(0, io);
            ContainerNamespace.claim(catalog.catalog(), container, resourceId, flattenerConfig.rootTable());
            SystemColumnMigration.migrate(catalog.catalog(), container, flattenerConfig.rootTable(), rebuilding);
            if (indexKept && !rebuilding) {
                ShardedBatch.refuseWhileChangesAreHeld(catalog.catalog(), container, flattenerConfig.rootTable(),
                        "the mirror taking it over");
            }
            DocumentIndex index = indexKept
                    ? DocumentIndex.open(directory.resolve(DOCUMENT_INDEX),
                            DocumentKeys.reader(catalog.catalog(), container, flattenerConfig.rootTable()))
                    : unkeptIndex(directory, container);
            opened.add(0, index);
            TablesState state = TablesState.load(catalog.catalog(), catalog.workers(), container, flattenerConfig,
                    rebuilding, index);
            ScratchDirectory scratch = ScratchDirectory.takeOver(directory, lock);
            opened.add(0, scratch::remove);
            DuckDbWriters writers = DuckDbWriters.open(container, scratch);
            opened.add(0, writers);
            EncoderThreads encoders = EncoderThreads.forCores(container);
            opened.add(0, encoders);
            ContainerResources resources = new ContainerResources(container, settings, catalog, io, flattenerConfig,
                    config, analyticalTtl, index, encoders, writers, scratch, observer);
            return new ContainerTables(resources, new CommittedTables(container, flattenerConfig, state, rebuilding),
                    lock, state.indexRebuilt(), new ReaderLeases(directory), clock);
        } catch (RuntimeException e) {
            throw closeAll(e, opened);
        }
    }

    @Override
    public String container() {
        return resources.container();
    }

    /** Where DuckDB spills while it works for these tables (a rebuild's reading of the history, say). */
    public ScratchDirectory scratch() {
        return resources.scratch();
    }

    @Override
    public Checkpoint checkpoint() {
        return committed.checkpoint();
    }

    /** A backfill that was started and has not finished; empty when there is none. */
    public Optional<BackfillState> backfill() {
        return committed.backfill();
    }

    /**
     * Starts the one batch of a rebuild: the history's changes, flattened afresh; its commit replaces every flattened
     * table and the dead letters at once, and keeps the history and the checkpoint. See {@link #openForRebuild}.
     */
    public ContainerBatch beginRebuild() {
        if (!committed.rebuilding()) {
            throw new IllegalStateException("The tables of " + container() + " were not opened for a rebuild");
        }
        backfill().ifPresent(unfinished -> {
            throw new MirrorException(MirrorErrorCode.BACKFILL_UNFINISHED,
                    "Cannot rebuild the tables of " + container() + ": its backfill has not "
                    + "finished; run `docmirror backfill --container " + container() + "` again first");
        });
        return startBatch(CommitKind.REBUILD);
    }

    /**
     * Starts the one batch of a backfill over tables that hold a mirror (see {@link #openForReplacingBackfill}): the
     * store's snapshot of every document; {@link ContainerBatch#commitReplacingBackfill} replaces every table with
     * it, the history included, in one commit, so readers see the old mirror until then.
     */
    public ContainerBatch beginReplacingBackfill() {
        if (!committed.rebuilding()) {
            throw new IllegalStateException("The tables of " + container() + " were not opened to be replaced");
        }
        return startBatch(CommitKind.BACKFILL);
    }

    /**
     * Starts a backfill over the tables (see {@link #openForReplacingBackfill}, whether they hold a mirror or not)
     * whose parts are written elsewhere, from the starts and to the schema that {@code plan} has (settled, or a
     * guess that {@link BackfillInParts#fits} checks).
     *
     * @throws IllegalStateException when the plan has scanned no part yet
     * @throws IllegalArgumentException when the plan was made under another flattener configuration
     */
    public BackfillInParts beginBackfillInParts(SchemaPlan plan) {
        if (plan.rounds() == 0) {
            throw new IllegalStateException("Cannot backfill " + container() + " in parts: the schema plan has "
                    + "scanned no part yet");
        }
        if (!plan.config().equals(resources.flattenerConfig())) {
            throw new IllegalArgumentException("Cannot backfill " + container() + " in parts: its schema was decided "
                    + "under flattener configuration " + plan.config() + ", and the tables are opened under "
                    + resources.flattenerConfig());
        }
        ContainerBatch batch = beginReplacingBackfill();
        try {
            return new BackfillInParts(container(), batch, plan, resources.config().parquet().fileRows());
        } catch (RuntimeException e) {
            throw batch.abort(e);
        }
    }

    /** Starts the batch of one feed range's backfill snapshot; {@link ContainerBatch#commitBackfillRange} ends it. */
    public ContainerBatch beginBackfill() {
        return startBatch(CommitKind.BACKFILL);
    }

    /**
     * Finishes a backfill whose every feed range is committed: the change feed starts at {@code checkpoint} (each
     * range's snapshot LSN), and the history holds every change from there on.
     */
    public void finishBackfill(Checkpoint checkpoint) {
        BackfillState state = backfill().filter(BackfillState::isComplete).orElseThrow(() ->
                new IllegalStateException("The backfill of " + container() + " has feed ranges left to do"));
        startBatch(CommitKind.BACKFILL).commitBackfillEnd(state, checkpoint);
    }

    /** The flattener configuration the committed tables were made with. */
    public FlattenerConfig flattenerConfigOfTables() {
        return committed.flattenerConfigOfTables();
    }

    /** From which LSN per feed range the history holds every change (after a backfill); empty: from the start. */
    public Map<Integer, Long> historyFrom() {
        return committed.historyFrom();
    }

    /** The history's data files that cannot be read as the table's metadata records them (missing, another size). */
    public List<DataFile> damagedHistoryFiles() {
        TableIdentifier history = table(MirrorTables.history(rootTable()));
        CatalogConnection catalog = resources.catalog();
        if (!catalog.catalog().tableExists(history)) {
            return List.of();
        }
        return TableChanges.liveFiles(catalog.catalog().loadTable(history), catalog.workers()).stream()
                .filter(file -> FileDamage.of(resources.io(), file.location(), file.fileSizeInBytes()).isPresent())
                .toList();
    }

    /** The lowest {@code _lsn} a history data file holds, from its column statistics. */
    public static long lowestLsn(DataFile historyFile) {
        return lsnBound(historyFile, historyFile.lowerBounds(), "lowest");
    }

    /** The highest {@code _lsn} a history data file holds, from its column statistics. */
    public static long highestLsn(DataFile historyFile) {
        return lsnBound(historyFile, historyFile.upperBounds(), "highest");
    }

    private static long lsnBound(DataFile historyFile, Map<Integer, ByteBuffer> bounds, String which) {
        int lsn = LogTables.HISTORY.findField(LSN.columnName()).fieldId();
        ByteBuffer bound = bounds == null ? null : bounds.get(lsn);
        if (bound == null) {
            throw new MirrorException(MirrorErrorCode.UNREADABLE_MIRROR,
                    "The history file " + historyFile.location() + " records no " + which
                    + " LSN");
        }
        return Conversions.<Long>fromByteBuffer(Types.LongType.get(), bound);
    }

    /**
     * Hands {@code _lsn}, {@code _pk} and {@code id} of each change from {@code fromLsn} to {@code toLsn} in the
     * history's other files to {@code sink}; a file whose LSNs all lie outside that span is not read.
     */
    public void forEachIntactHistoryChange(List<DataFile> damaged, long fromLsn, long toLsn, HistoryKeySink sink) {
        CatalogConnection catalog = resources.catalog();
        Table history = catalog.catalog().loadTable(table(MirrorTables.history(rootTable())));
        Schema keys = history.schema().select(LSN.columnName(), PARTITION_KEY.columnName(), ID.columnName());
        for (DataFile file : TableChanges.liveFiles(history, catalog.workers())) {
            if (damaged.stream().anyMatch(bad -> bad.location().equals(file.location()))
                    || highestLsn(file) < fromLsn || lowestLsn(file) > toLsn) {
                continue;
            }
            try (CloseableIterable<Record> records = Parquet.read(history.io().newInputFile(file.location()))
                    .project(keys)
                    .createReaderFunc(fileSchema -> GenericParquetReaders.buildReader(keys, fileSchema))
                    .build()) {
                for (Record record : records) {
                    long lsn = (Long) record.getField(LSN.columnName());
                    if (lsn >= fromLsn && lsn <= toLsn) {
                        sink.accept(lsn, (String) record.getField(PARTITION_KEY.columnName()),
                                (String) record.getField(ID.columnName()));
                    }
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
        ContainerBatch batch = startBatch(CommitKind.REPAIR);
        try {
            TableChanges history = batch.writer().historyTable();
            Map<String, DeleteFile> historyVectors = committed.vectors(history.name());
            for (DataFile file : damaged) {
                // Its deletion vector (the analytical TTL's) goes with it.
                history.removeFile(file, historyVectors.get(file.location()));
            }
            for (ChangeEvent event : recovered) {
                history.write(LogTables.history(history.newRecord(), event, event.partitionKey().jsonText(),
                        DocumentTimestamp.of(event), event.documentJson().orElse(null)));
            }
        } catch (RuntimeException e) {
            throw batch.abort(e);
        }
        batch.commit(checkpoint());
    }

    @Override
    public boolean needsReopening() {
        return committed.outOfStep() != null;
    }

    @Override
    public String position() {
        return committed.position();
    }

    /** How many batches were committed. */
    public long batches() {
        return committed.batches();
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
        return resources.rows().documents();
    }

    /** The identifier of one of the container's tables. */
    public TableIdentifier table(String name) {
        return resources.table(name);
    }

    public String rootTable() {
        return resources.rootTable();
    }

    @Override
    public ContainerBatch begin() {
        ContainerBatch batch = startBatch(CommitKind.STREAM);
        Compaction rewritten = upkeep.takeRewritten();
        if (rewritten != null) {
            // A commit of its own would hold the batches back: this batch's commit takes the compaction in.
            batch.writer().takeIn(rewritten);
        }
        return batch;
    }

    /**
     * Opens the next batch of a scaled-out stream: its writers' files and deletions, and the schema decided for the
     * documents they could not flatten, committed as one batch. Only on tables opened with
     * {@link #openForShardedStream}.
     */
    public ShardedBatch beginShardedBatch() {
        if (!(resources.rows() instanceof UnkeptDocumentIndex)) {
            throw new IllegalStateException("The tables of " + container() + " keep a document index: a scaled-out "
                    + "stream's batch needs them opened for it (openForShardedStream)");
        }
        return new ShardedBatch(container(), startBatch(CommitKind.SHARDED_STREAM), committed);
    }

    /**
     * What a scaled-out stream's writers write against now: the tables and the schema of the catalog's last commit,
     * their files named by {@code checkpoint}.
     */
    public RemoteWriteTarget shardTarget(long checkpoint) {
        return ShardedBatch.target(resources, committed, checkpoint);
    }

    /**
     * Hands every live row of the flattened tables to {@code rows}, with the key of its document
     * ({@link ShardWriter#documentKey}): how a scaled-out stream's writers, started on tables they did not write,
     * learn where the documents' rows are. A pass over every key column of the container, made once.
     */
    public void forEachDocumentRow(BiConsumer<String, RowPlace> rows) {
        forEachDocumentRow(resources.catalog().catalog(), resources.catalog().workers(), container(),
                committed.flattener().schema(), rows);
    }

    static void forEachDocumentRow(Catalog catalog, ExecutorService planner, String container,
            ContainerSchema committedSchema, BiConsumer<String, RowPlace> rows) {
        for (TableSchema schema : committedSchema.tables()) {
            TableIdentifier identifier = MirrorTables.table(container, schema.name());
            if (catalog.tableExists(identifier)) {
                TablesState.readRows(catalog.loadTable(identifier), planner, schema,
                        (key, file, position) -> rows.accept(key, new RowPlace(schema.name(), file, position)));
            }
        }
    }

    /** Opens the next batch, one of {@code kind}; one batch is open at a time. */
    private ContainerBatch startBatch(CommitKind kind) {
        String container = container();
        if (openBatch != null) {
            throw new IllegalStateException("A batch of " + container + " is open already");
        }
        if (committed.outOfStep() != null) {
            throw new MirrorException(MirrorErrorCode.COMMIT_UNKNOWN,
                    "Cannot begin a batch of " + container + ": " + committed.outOfStep()
                    + "; open the container's tables again to go on from what the catalog holds");
        }
        if (!committed.documentsIndexed() && kind.indexesDocuments()) {
            throw new IllegalStateException("The tables of " + container + " were backfilled here and do not know "
                    + "where the backfilled documents' rows are; open them again for a " + kind.summaryName()
                    + " batch");
        }
        BatchWriter writer = new BatchWriter(resources, committed, committed.batches() + 1, kind);
        openBatch = new ContainerBatch(writer, new BatchCommit(resources, committed, writer), committed,
                () -> openBatch = null);
        return openBatch;
    }

    /**
     * Applies the analytical TTL when it is due ({@code mirror.analytical-ttl.interval-ms}); then, after new commits
     * only, compacts the tables that are due and expires old snapshots. The first upkeep after the tables open also
     * removes what a crash left.
     */
    @Override
    public boolean maintain() {
        return upkeep.maintain(false);
    }

    /**
     * {@link #maintain}, with a compaction's rewrite on a thread of its own: it is committed at the first call after
     * it is done, so that batches go on being committed meanwhile (the daemon's upkeep).
     */
    @Override
    public boolean maintainInBackground() {
        return upkeep.maintain(true);
    }

    /**
     * Removes the files under the container's warehouse folder that no table reaches and that are older than
     * {@code mirror.snapshots.keep-ms}: what a crash left, the files of tables a rebuild dropped. The daemon does it
     * at the first upkeep after the tables open; a batch job, before its batch.
     */
    public void removeOrphanFiles() {
        upkeep.removeOrphanFiles();
    }

    /** Waits until a compaction being rewritten off the daemon's thread is done (tests: which batch commits it). */
    void awaitCompactionRewrite() {
        upkeep.awaitCompactionRewrite();
    }

    /**
     * Applies the container's analytical TTL as of the clock's second now, as a commit of its own ({@code ttl}) when
     * anything is past it; the checkpoint stays. Every document whose root row's {@code _ts} is at or before that
     * second minus the TTL loses its rows, root and child, as a streamed delete would remove them, and so does each
     * history entry as old (the history's view leaves those out too). After the commit, Iceberg's own reader returns
     * what the SQL endpoint's views return as of that second. A commit deletes about {@code mirror.batch.max-events}
     * documents at most; the rest are due at the next upkeep.
     *
     * @throws IllegalStateException when the container has no analytical TTL (-1), the tables were opened by name
     *     (without the container's properties), a batch is open, or the tables were opened for a rebuild
     */
    public TtlExpiry applyAnalyticalTtl() {
        return upkeep.applyAnalyticalTtl();
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
        return upkeep.compact();
    }

    /**
     * Abandons an open batch, waits for a compaction being rewritten (its files are deleted: the next open plans
     * again), and closes what the tables hold, the writer lock last.
     */
    @Override
    public void close() {
        List<AutoCloseable> closing = new ArrayList<>();
        if (openBatch != null) {
            closing.add(openBatch::abort);
        }
        closing.addAll(List.of(upkeep, resources.encoders(), resources.writers(), resources.scratch()::remove,
                resources.rows(), resources.catalog(), resources.io(), lock));
        RuntimeException failure = closeAll(null, closing);
        if (failure != null) {
            throw failure;
        }
    }

    /**
     * Closes each of {@code resources} in order, every one even when others fail; returns {@code failure} (or, when
     * null, the first failure of closing) with what closing threw suppressed in it.
     */
    private static RuntimeException closeAll(RuntimeException failure, List<AutoCloseable> resources) {
        RuntimeException first = failure;
        for (AutoCloseable resource : resources) {
            try {
                resource.close();
            } catch (Exception e) {
                if (first == null) {
                    first = e instanceof RuntimeException runtime ? runtime
                            : new MirrorException(MirrorErrorCode.IO_FAILURE, "Cannot close " + resource, e);
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        return first;
    }

    /** {@link MirrorProperties#COLUMN_ROLES} of a table. */
    static String columnRoles(TableSchema schema) {
        Map<String, String> roles = new LinkedHashMap<>();
        schema.columns().forEach(column -> roles.put(column.name(), column.role().catalogName()));
        return BatchCommit.json(roles);
    }
}
