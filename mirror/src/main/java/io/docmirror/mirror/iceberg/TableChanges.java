package io.docmirror.mirror.iceberg;

import io.docmirror.flatten.Row;
import io.docmirror.layout.IcebergWorkers;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.RewriteFiles;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotUpdate;
import org.apache.iceberg.Table;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.function.LongConsumer;

/**
 * What one batch does to one table, staged in the table's transaction: the data files it adds (a new one whenever
 * the table's schema changes, so each file has one schema) and the rows it deletes.
 */
final class TableChanges {
    private final TableIdentifier identifier;
    private final Transaction transaction;
    /** The table as committed before the batch, for scans (a transaction cannot scan); null for a new table. */
    private final Table base;
    private final Long baseSnapshot;
    private final RowDeletions deletions;
    private final ExecutorService workers;
    /** The data files the batch writes into the table. */
    private final TableFiles files;
    /** Data files that leave the table in the batch, or that the batch wrote and dropped. */
    private final List<String> leaving = new ArrayList<>();
    /** Committed data files that leave the table in the batch, and their deletion vectors. */
    private final List<DataFile> removed = new ArrayList<>();
    private final List<DeleteFile> removedVectors = new ArrayList<>();
    /** True when the batch only moves rows between files (compaction): committed as a rewrite, not a row delta. */
    private boolean rewriteOnly;

    /**
     * @param committedVectors the table's committed deletion vectors, by data file
     * @param batch the batch's number, which starts its data files' names
     * @param workers the threads a listing of the committed files plans with ({@link IcebergWorkers})
     * @param encoders the threads Iceberg's Parquet writer encodes on ({@link TableFiles})
     * @param writers the DuckDB that encodes the flattened rows of files that last
     * @param lasting whether the batch's files last (a backfill's, a rebuild's, a repair's)
     * @param fileRows how many rows a file that lasts holds at most
     */
    TableChanges(TableIdentifier identifier, Transaction transaction, Table base,
            Map<String, DeleteFile> committedVectors, long batch, ExecutorService workers, EncoderThreads encoders,
            DuckDbWriters writers, boolean lasting, long fileRows) {
        this.identifier = identifier;
        this.workers = workers;
        this.transaction = transaction;
        this.base = base;
        Snapshot current = transaction.table().currentSnapshot();
        this.baseSnapshot = current == null ? null : current.snapshotId();
        this.deletions = new RowDeletions(committedVectors);
        this.files = new TableFiles(transaction::table, batch, encoders, writers, lasting, fileRows);
    }

    String name() {
        return identifier.name();
    }

    Transaction transaction() {
        return transaction;
    }

    /** The table as the batch has it: schema changes staged so far included. */
    Table table() {
        return transaction.table();
    }

    /** An empty record of the table's current schema. */
    Record newRecord() {
        return files.newRecord();
    }

    /** Writes a row of the table's current schema into the batch's current data file; returns its position. */
    long write(Record row) {
        return files.write(row);
    }

    /**
     * Writes a flattened row into the batch's current data file, {@code records} making it a record, or vectors, of
     * the table's current schema; returns its position.
     */
    long write(Row row, RowRecords records) {
        return files.write(row, records);
    }

    /**
     * Adds to the batch a data file written elsewhere (a compaction's {@link DuckDbRewrite}, a part of a backfill);
     * the batch deletes it if it is abandoned.
     */
    void addWritten(DataFile file) {
        files.addWritten(file);
    }

    /** Adds to the batch a data file a scaled-out stream's writer wrote: not the batch's to remove ({@link TableFiles}). */
    void addBorrowed(DataFile file) {
        files.addBorrowed(file);
    }

    /** A data file apart from the batch's current one, named {@code fileName} ({@link TableFiles#separateFile}). */
    DataFileWriter separateFile(String fileName) {
        return files.separateFile(fileName);
    }

    /** The data file {@link #write} wrote its last row to. */
    String currentFile() {
        return files.currentFile();
    }

    /** Closes the current data file: the next row starts a new one (after a schema change). */
    void roll() {
        files.roll();
    }

    void delete(String dataFile, long position) {
        if (rewriteOnly && files.added().stream().noneMatch(file -> file.location().equals(dataFile))) {
            // A compaction deletes only rows of the files it writes: those deleted while it rewrote them.
            throw new IllegalStateException("A compaction of " + identifier + " deletes no row of " + dataFile);
        }
        deletions.delete(dataFile, position);
    }

    /** Commits the batch's changes of the table as a rewrite: the same rows in other files (compaction). */
    void rewriteOnly() {
        rewriteOnly = true;
    }

    /** Whether the batch deleted the row at {@code position} of {@code dataFile}. */
    boolean isDeleted(String dataFile, long position) {
        return deletions.isDeleted(dataFile, position);
    }

    /** Hands each row of {@code dataFile} the batch deleted to {@code action}, by position. */
    void forEachDeletedInBatch(String dataFile, LongConsumer action) {
        deletions.forEachPending(dataFile, action);
    }

    /** The data files committed before the batch; none for a table the batch creates. */
    List<DataFile> committedFiles() {
        return base == null ? List.of() : liveFiles(base, workers);
    }

    /** The data files of a table's current snapshot, with their column statistics; planned with {@code planner}. */
    static List<DataFile> liveFiles(Table table, ExecutorService planner) {
        if (table.currentSnapshot() == null) {
            return List.of();
        }
        List<DataFile> files = new ArrayList<>();
        // With their column statistics: which files a widening rewrites, and a history file's LSNs, come from them.
        try (CloseableIterable<FileScanTask> tasks = table.newScan().includeColumnStats().planWith(planner)
                .planFiles()) {
            tasks.forEach(task -> files.add(task.file()));
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot list the files of " + table.name(), e);
        }
        return files;
    }

    /** The data files the table holds as the batch has it so far: the committed ones that stay, and the added. */
    List<String> liveFiles() {
        Set<String> leavingNow = Set.copyOf(leaving);
        List<String> live = new ArrayList<>();
        committedFiles().forEach(file -> {
            if (!leavingNow.contains(file.location())) {
                live.add(file.location());
            }
        });
        addedFiles().forEach(file -> live.add(file.location()));
        return live;
    }

    /** The data files the batch added so far (finished ones). */
    List<DataFile> addedFiles() {
        return files.added();
    }

    /**
     * Takes a data file out of the table (its rows were copied elsewhere): a file the batch added is dropped, a
     * committed one is removed by the commit, with its deletion vector ({@code vector}, null when it has none).
     */
    void removeFile(DataFile file, DeleteFile vector) {
        deletions.forget(file.location());
        leaving.add(file.location());
        if (files.drop(file.location())) {
            if (files.wrote(file.location())) {
                // Nothing names it: it never was part of the table.
                table().io().deleteFile(file.location());
            }
            return;
        }
        removed.add(file);
        if (vector != null) {
            removedVectors.add(vector);
        }
    }

    /** The update, with its manifests read and written on the committing thread ({@link IcebergWorkers#callerRuns}). */
    private static <T extends SnapshotUpdate<T>> T onThisThread(T update) {
        ExecutorService thisThread = IcebergWorkers.callerRuns();
        return update.scanManifestsWith(thisThread).writeManifestsWith(thisThread, 1);
    }

    /**
     * Stages the batch's rows: its data files and deletion vectors, with the summary entries, as one row delta of the
     * table's transaction, which it then commits into the catalog batch; {@code observer} is told each step.
     */
    void stage(Map<String, String> summary, CommitObserver observer) {
        files.roll();
        List<DataFile> added = files.added();
        observer.reached(CommitStep.DATA_FILES_WRITTEN, identifier);
        if (rewriteOnly) {
            // Vectors only of rewritten files: the rows deleted while a compaction rewrote them off the batch.
            Set<DeleteFile> newVectors = new HashSet<>();
            deletions.writeInto(table(), newVectors::add, vector -> {
                throw new IllegalStateException("A compaction of " + identifier + " replaced the vector " + vector);
            });
            RewriteFiles rewrite = onThisThread(transaction.newRewrite()).rewriteFiles(new HashSet<>(removed),
                    new HashSet<>(removedVectors), new HashSet<>(added), newVectors);
            if (baseSnapshot != null) {
                rewrite.validateFromSnapshot(baseSnapshot);
            }
            summary.forEach(rewrite::set);
            rewrite.commit();
            observer.reached(CommitStep.MANIFESTS_WRITTEN, identifier);
            transaction.commitTransaction();
            observer.reached(CommitStep.METADATA_STAGED, identifier);
            return;
        }
        RowDelta delta = onThisThread(transaction.newRowDelta());
        added.forEach(delta::addRows);
        removed.forEach(delta::removeRows);
        removedVectors.forEach(delta::removeDeletes);
        if (baseSnapshot != null) {
            // Also what makes Iceberg check that no other deletion vector of the same data files came meanwhile.
            delta.validateFromSnapshot(baseSnapshot);
        }
        deletions.writeInto(table(), delta::addDeletes, delta::removeDeletes);
        observer.reached(CommitStep.DELETION_VECTORS_WRITTEN, identifier);
        summary.forEach(delta::set);
        // Inside the transaction, the commit of a row delta writes its manifests and manifest list; the table's
        // next metadata is staged (its file written) when the transaction commits into the catalog batch.
        delta.commit();
        observer.reached(CommitStep.MANIFESTS_WRITTEN, identifier);
        transaction.commitTransaction();
        observer.reached(CommitStep.METADATA_STAGED, identifier);
    }

    /** The table's deletion vectors once the batch is committed. */
    Map<String, DeleteFile> committedVectors() {
        return deletions.committedAfter();
    }

    /** The data files that leave the table with the batch (or that it wrote and dropped). */
    List<String> leavingFiles() {
        return List.copyOf(leaving);
    }

    /** Every file the batch wrote for the table (data files and deletion vectors), to remove when it is abandoned. */
    List<String> writtenFiles() {
        List<String> written = new ArrayList<>(files.written());
        written.addAll(deletions.writtenFiles());
        return written;
    }

    /** Closes what is open, for a batch that is abandoned. */
    void abandon() {
        files.abandon();
    }
}
