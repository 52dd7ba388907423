package io.docmirror.mirror.iceberg;

import io.docmirror.flatten.SystemColumn;
import io.docmirror.layout.IcebergWorkers;
import io.docmirror.layout.MirrorTables;
import io.docmirror.layout.ReaderLeases;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

import static io.docmirror.flatten.SystemColumn.ID;
import static io.docmirror.flatten.SystemColumn.PARTITION_KEY;

/**
 * A container's table upkeep between batches, each step a commit of its own (or none): the analytical TTL applied,
 * compaction (planned from the committed tables, its rows rewritten on a thread of its own while batches go on),
 * old snapshots expired, and the files a crash or a dropped table left removed.
 */
final class TableUpkeep implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(TableUpkeep.class);

    private final ContainerResources resources;
    private final CommittedTables committed;
    /** Starts a batch of a kind; upkeep's steps are batches too. */
    private final Function<CommitKind, ContainerBatch> begin;
    /** Whether a batch is open now. */
    private final BooleanSupplier batchOpen;
    /** The leases readers (the SQL endpoint) hold on batches they read: their snapshots must not expire. */
    private final ReaderLeases readers;
    /** The mirror's clock: what the analytical TTL counts back from, and when it is applied next. */
    private final Clock clock;
    /** When the analytical TTL was last applied; null: not since the tables were opened. */
    private Instant ttlAppliedAt;
    /** By table (the root, the history): which of its data files can hold rows past the analytical TTL. */
    private final Map<String, ExpiredRows> expiredRows = new HashMap<>();
    /** The batch number {@link #maintain} last looked at: upkeep is due only after new commits. */
    private long maintainedAt;
    /**
     * Whether the files a crash or a dropped table left were looked for since the tables opened: at the first upkeep
     * no reader holds a lease at, not on opening, since the search reads every retained snapshot's manifests and
     * mirroring can start before.
     */
    private boolean orphansRemoved;
    /** The thread a compaction's rewrite runs on while the daemon goes on committing batches. */
    private final ExecutorService compactor;
    /** The compaction being rewritten off the daemon's thread; null when none is. */
    private CompletableFuture<Compaction> rewriting;
    /** The batch that compaction was planned at: expiry keeps it, since the rewrite reads its deletion vectors. */
    private long rewritingFrom;

    TableUpkeep(ContainerResources resources, CommittedTables committed, Function<CommitKind, ContainerBatch> begin,
            BooleanSupplier batchOpen, ReaderLeases readers, Clock clock) {
        this.resources = resources;
        this.committed = committed;
        this.begin = begin;
        this.batchOpen = batchOpen;
        this.readers = readers;
        this.clock = clock;
        this.compactor = Executors.newSingleThreadExecutor(task -> {
            Thread thread = new Thread(task, "docmirror-compaction-" + resources.container());
            thread.setDaemon(true);
            return thread;
        });
    }

    /**
     * Applies the analytical TTL when it is due; then, after new commits only, compacts the tables that are due and
     * expires old snapshots. With {@code background}, a compaction's rewrite runs on a thread of its own: it is
     * committed at the first call after it is done, or by the next batch ({@link #takeRewritten}).
     *
     * @return whether a compaction was committed
     */
    boolean maintain(boolean background) {
        if (!orphansRemoved) {
            removeOrphanFiles();
        }
        if (isAnalyticalTtlDue()) {
            applyAnalyticalTtl();
        }
        boolean compacted = false;
        if (rewriting != null && (!background || rewriting.isCompletedExceptionally()
                || (rewriting.isDone() && committed.batches() == maintainedAt))) {
            // Rewritten while no batch came (else the next batch's commit takes it in), or failed: reported here.
            CompletableFuture<Compaction> done = rewriting;
            rewriting = null;
            compacted = commitCompaction(awaitRewrite(done));
        }
        if (committed.batches() == maintainedAt) {
            return compacted;
        }
        if (rewriting == null) {
            Compaction planned = planCompaction();
            if (planned != null && background && planned.isLocal()) {
                rewritingFrom = committed.batches();
                rewriting = CompletableFuture.supplyAsync(() -> {
                    Compaction rewritten = planned.rewrite(resources.scratch());
                    resources.observer().reached(CommitStep.COMPACTION_REWRITTEN, null);
                    return rewritten;
                }, compactor);
            } else if (planned != null) {
                compacted |= commitCompaction(planned.rewrite(resources.scratch()));
            }
        }
        SnapshotExpiry.expire(CatalogBatch.of(resources.settings(), resources.catalog(), resources.io()),
                resources.catalog().catalog().listTables(MirrorTables.namespace(resources.container())),
                oldestNeeded(), resources.config(), resources.catalog().workers());
        maintainedAt = committed.batches();
        return compacted;
    }

    /**
     * The oldest batch whose snapshots expiry must keep: the oldest a reader's lease holds, and the one a compaction
     * being rewritten was planned at (under load a rewrite can outlast {@code mirror.snapshots.keep-ms}, and its
     * deletion vectors were removed under it).
     */
    private OptionalLong oldestNeeded() {
        OptionalLong held = readers.oldestHeld();
        if (rewriting == null) {
            return held;
        }
        return OptionalLong.of(held.isPresent() ? Math.min(held.getAsLong(), rewritingFrom) : rewritingFrom);
    }

    /** A compaction rewritten off the daemon's thread and not committed yet, for a batch to take in; null if none. */
    Compaction takeRewritten() {
        if (rewriting == null || !rewriting.isDone() || rewriting.isCompletedExceptionally()) {
            return null;
        }
        Compaction rewritten = rewriting.join();
        rewriting = null;
        return rewritten;
    }

    /**
     * Removes the files under the container's warehouse folder that no table reaches and that are older than
     * {@code mirror.snapshots.keep-ms} ({@link OrphanFiles}): what a crash left, the files of tables a rebuild
     * dropped. Not while a reader holds a lease (it may read a dropped table): then at a later upkeep.
     */
    void removeOrphanFiles() {
        if (batchOpen.getAsBoolean()) {
            throw new IllegalStateException("Cannot look for orphan files of " + resources.container()
                    + " while a batch is open");
        }
        orphansRemoved = OrphanFiles.removeUnder(resources.catalog().catalog(), resources.io(), resources.settings(),
                resources.container(), readers, resources.config());
    }

    private Compaction awaitRewrite(CompletableFuture<Compaction> rewrite) {
        try {
            return rewrite.join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException cause ? cause
                    : new IllegalStateException("Cannot compact " + resources.container(), e.getCause());
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
        return resources.analyticalTtl().orElse(-1) >= 0 && committed.batches() > 0 && (ttlAppliedAt == null
                || !clock.instant().isBefore(ttlAppliedAt.plus(resources.config().analyticalTtlInterval())));
    }

    /** See {@link ContainerTables#applyAnalyticalTtl}. */
    TtlExpiry applyAnalyticalTtl() {
        String container = resources.container();
        if (resources.analyticalTtl().orElse(-1) < 0) {
            throw new IllegalStateException("Cannot apply the analytical TTL of " + container + ": "
                    + (resources.analyticalTtl().isPresent() ? "it has none (-1), its documents are kept forever"
                            : "the tables were opened without the container's properties"));
        }
        if (batchOpen.getAsBoolean() || committed.rebuilding()) {
            throw new IllegalStateException("Cannot apply the analytical TTL of " + container + " while a "
                    + (committed.rebuilding() ? "rebuild" : "batch") + " is open");
        }
        ttlAppliedAt = clock.instant();
        long ttl = resources.analyticalTtl().getAsLong();
        long cutoffTs = Math.subtractExact(ttlAppliedAt.getEpochSecond(), ttl);
        ContainerBatch batch = begin.apply(CommitKind.TTL);
        TtlExpiry expiry;
        try {
            expiry = expireUpTo(batch.writer(), cutoffTs);
        } catch (RuntimeException e) {
            expiredRows.values().forEach(ExpiredRows::forgetAll);
            throw batch.abort(e);
        }
        if (!expiry.committed()) {
            batch.abort();
            return expiry;
        }
        try {
            batch.commit(committed.checkpoint());
        } catch (RuntimeException e) {
            // The commit abandoned the batch, so the rows found are still there: every file is read again next time.
            expiredRows.values().forEach(ExpiredRows::forgetAll);
            throw e;
        }
        log.info("Applied the analytical TTL of {} ({} s): {} documents and {} history entries up to _ts {} "
                + "deleted in batch {}{}", container, ttl, expiry.documents(), expiry.historyEntries(), cutoffTs,
                committed.batches(), expiry.complete() ? "" : "; more are due, next upkeep");
        if (!expiry.complete()) {
            // Due again at the next upkeep, between the batches that go on meanwhile.
            ttlAppliedAt = null;
        }
        return expiry;
    }

    /**
     * Deletes in the batch the rows the analytical TTL expires: those of each document whose root row's {@code _ts}
     * is at or before {@code cutoffTs}, and the history entries as old.
     */
    private TtlExpiry expireUpTo(BatchWriter batch, long cutoffTs) {
        // A commit deletes at most about a batch of documents, and of history entries: the first expiry of a large
        // container takes several, one at each upkeep, so that what a commit holds stays bounded.
        long budget = resources.config().batchMaxEvents();
        CatalogBatch catalogBatch = batch.catalogBatch();
        int[] documents = {0};
        ExpiredRows.Found root = new ExpiredRows.Found(0, true);
        String rootTable = resources.rootTable();
        TableIdentifier rootIdentifier = resources.table(rootTable);
        if (catalogBatch.exists(rootIdentifier)) {
            // The same path as a streamed delete: the root row and every child row the document has go. A document
            // has one live root row, so each comes once.
            root = expiredRows.computeIfAbsent(rootTable, name -> new ExpiredRows()).find(
                    catalogBatch.table(rootIdentifier), resources.catalog().workers(), cutoffTs, List.of(ID.columnName(), PARTITION_KEY.columnName()),
                    budget, (file, position, row) -> {
                        batch.deleteDocument(DocumentIndex.key((String) row.getField(ID.columnName()),
                                (String) row.getField(PARTITION_KEY.columnName())));
                        documents[0]++;
                    });
        }
        String historyName = MirrorTables.history(rootTable);
        TableIdentifier history = resources.table(historyName);
        int[] historyEntries = {0};
        ExpiredRows.Found historyFound = new ExpiredRows.Found(0, true);
        if (catalogBatch.exists(history)) {
            historyFound = expiredRows.computeIfAbsent(historyName, name -> new ExpiredRows()).find(
                    catalogBatch.table(history), resources.catalog().workers(), cutoffTs, List.of(), budget,
                    (file, position, row) -> {
                        batch.deleteHistoryEntry(file, position);
                        historyEntries[0]++;
                    });
        }
        return new TtlExpiry(cutoffTs, documents[0], historyEntries[0], root.filesRead() + historyFound.filesRead(),
                root.complete() && historyFound.complete());
    }

    /** See {@link ContainerTables#compact}. */
    boolean compact() {
        if (resources.config().compactionFiles() == 0 || committed.batches() == 0) {
            return false;
        }
        if (batchOpen.getAsBoolean()) {
            throw new IllegalStateException("Cannot compact " + resources.container() + " while a batch is open");
        }
        Compaction planned = planCompaction();
        return planned != null && commitCompaction(planned.rewrite(resources.scratch()));
    }

    /** The compaction due now, planned from the committed tables; null when none is. */
    private Compaction planCompaction() {
        int compactionFiles = resources.config().compactionFiles();
        if (compactionFiles == 0 || committed.batches() == 0) {
            return null;
        }
        CatalogBatch committedTables = CatalogBatch.of(resources.settings(), resources.catalog(), resources.io());
        List<Compaction.TableRewrite> rewrites = new ArrayList<>();
        for (TableIdentifier identifier : resources.catalog().catalog().listTables(
                MirrorTables.namespace(resources.container()))) {
            String name = identifier.name();
            Map<String, DeleteFile> tableVectors = committed.vectors(name);
            Table table = committedTables.table(identifier);
            // The snapshot's summary counts the files and deleted rows: most tables are not due, and need no
            // manifest read.
            Snapshot current = table.currentSnapshot();
            if (current == null || (summaryCount(current, "total-data-files") < compactionFiles
                    && summaryCount(current, "total-position-deletes") == 0)) {
                continue;
            }
            CompactionPlan plan = CompactionPlan.of(TableChanges.liveFiles(table, IcebergWorkers.callerRuns()),
                    tableVectors, compactionFiles);
            if (!plan.isDue()) {
                continue;
            }
            List<Compaction.Group> groups = new ArrayList<>();
            for (List<DataFile> files : plan.rewrites()) {
                Map<String, DeleteFile> groupVectors = new HashMap<>();
                files.stream().filter(file -> tableVectors.containsKey(file.location()))
                        .forEach(file -> groupVectors.put(file.location(), tableVectors.get(file.location())));
                groups.add(new Compaction.Group(files, groupVectors, table.locationProvider().newDataLocation(
                        String.format("%010d-%s-compacted.parquet", committed.batches(), UUID.randomUUID()))));
            }
            String keyColumn = committed.flattener().schema().findTable(name)
                    .map(schema -> SystemColumn.documentId(schema.isRoot()).columnName()).orElse(null);
            rewrites.add(new Compaction.TableRewrite(name, table, table.schema(), keyColumn, plan, groups));
        }
        return rewrites.isEmpty() ? null : new Compaction(rewrites);
    }

    /**
     * Commits a rewritten compaction as a commit of its own (an Iceberg rewrite: no query result changes); returns
     * whether anything was left to commit. A group whose files a batch replaced meanwhile (a widened column) is
     * dropped.
     */
    private boolean commitCompaction(Compaction compaction) {
        ContainerBatch batch = begin.apply(CommitKind.COMPACTION);
        boolean any;
        try {
            any = batch.writer().applyCompaction(compaction);
        } catch (RuntimeException e) {
            RuntimeException failure = batch.abort(e);
            try {
                compaction.writtenFiles().forEach(resources.io()::deleteFile);
            } catch (RuntimeException notDeleted) {
                failure.addSuppressed(notDeleted);
            }
            throw failure;
        }
        if (!any) {
            batch.abort();
            return false;
        }
        batch.commit(committed.checkpoint());
        return true;
    }

    /** A count Iceberg keeps in a snapshot's summary ({@code total-data-files}, say); 0 when absent. */
    private static long summaryCount(Snapshot snapshot, String key) {
        return Long.parseLong(snapshot.summary().getOrDefault(key, "0"));
    }

    /**
     * Waits for a compaction's rewrite that is still running (DuckDB cannot be interrupted midway) and deletes what
     * it wrote: it was not committed, and the next open plans again.
     */
    @Override
    public void close() {
        compactor.shutdown();
        if (rewriting == null) {
            return;
        }
        try {
            rewriting.join().writtenFiles().forEach(resources.io()::deleteFile);
        } catch (CompletionException e) {
            log.warn("The compaction of {} that was being rewritten when its tables closed failed; nothing of it was "
                    + "committed", resources.container(), e.getCause());
        } finally {
            rewriting = null;
        }
    }
}
