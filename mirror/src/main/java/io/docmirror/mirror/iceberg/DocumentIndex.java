package io.docmirror.mirror.iceberg;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Where each document's current rows are: for every document key, the place (data file and position) of its root row
 * and of each child row, in every table. An update or delete of the document turns these places into
 * deletion-vector entries, and the new version's places take over. The index grows with the container, so it is
 * kept out of the heap ({@link RocksDbDocumentIndex}); and since every question it answers is about one document,
 * it can be split by document key, each writer of a scaled-out mirror holding the shard of its own keys.
 *
 * <p>What it is asked:
 * <ul>
 *   <li>find a document's rows ({@link #of}), and name a new row's place ({@link #place});
 *   <li>change documents' rows with a commit, crash-safe: recorded before the catalog commit ({@link #prepare}),
 *       made after it ({@link #apply}), caught up on opening after a crash in between ({@link #catchUp});
 *   <li>move the rows a compaction rewrote (a {@link Moved} in {@link #prepare}), and forget data files that left
 *       the tables ({@link #forget});
 *   <li>be rebuilt from the tables' rows when it is lost ({@link #clear}, {@link #add}, {@link #mark}), or along
 *       with the tables ({@link #set}).
 * </ul>
 *
 * <p>A place is one {@code long}: the data file's ordinal in the index (high bits) and the row's position in the
 * file (the low {@value #POSITION_BITS} bits). Not thread-safe.
 */
interface DocumentIndex extends AutoCloseable {
    /** How many low bits of a place hold the row's position in its data file. */
    int POSITION_BITS = 40;

    /** The key of a document: its id and its partition key (as JSON), which together name it in a container. */
    static String key(String id, String partitionKey) {
        return id + '\u0000' + partitionKey;
    }

    /** How the index names a commit: the root table's Iceberg UUID and the batch. */
    static String marker(String rootUuid, long batch) {
        return rootUuid + "@" + batch;
    }

    /** The row's position in its data file. */
    static long position(long place) {
        return place & ((1L << POSITION_BITS) - 1);
    }

    /** Opens the index kept in {@code directory}, creating it when there is none. */
    static DocumentIndex open(Path directory, FileKeys fileKeys) {
        return RocksDbDocumentIndex.open(directory, fileKeys);
    }

    /** A data file and the table it belongs to. */
    record DataFileRef(String table, String location) {
    }

    /**
     * Where a compaction moved the rows of a data file: into {@code newFile} of {@code table}, at
     * {@code newPositions[position]} ({@code -1}: a deleted row, which no document may still have).
     */
    record Moved(String table, String newFile, int[] newPositions) {
    }

    /** Reads the document key of each row of a data file: how the index learns whose rows a compaction moved. */
    @FunctionalInterface
    interface FileKeys {
        /** Hands each row of {@code dataFile}, a file of {@code table}, to {@code row} with its position. */
        void read(String table, String dataFile, KeyedRow row);
    }

    /** One row of a data file and the key of the document it belongs to. */
    @FunctionalInterface
    interface KeyedRow {
        void accept(long position, String documentKey);
    }

    /** Whether the index keeps where the documents' rows are: false where a scaled-out stream's writers keep them. */
    default boolean kept() {
        return true;
    }

    /** The document's rows now; empty when the mirror has none (never mirrored, deleted, or a dead letter). */
    long[] of(String key);

    /**
     * The rows of each of {@code keys}, in their order: what {@link #of(String)} gives for each, found together, which
     * can be several times as fast.
     */
    List<long[]> of(List<String> keys);

    /** The place of the row at {@code position} of {@code dataFile}, a file of {@code table}. */
    long place(String table, String dataFile, long position);

    /** The data file of a place. */
    DataFileRef file(long place);

    /** How many documents have rows. */
    long documents();

    /**
     * Records, before the catalog commit of batch {@code batch}, what the commit changes in the index: each changed
     * document's rows from then on, the rows a compaction moves, the files that leave the tables. Nothing else
     * changes yet; {@link #apply} makes it so once the catalog has taken the batch, and a crash in between leaves
     * the index one commit behind with the way to catch up ({@link #catchUp}).
     *
     * @param documentsAdded how many more documents have rows after the batch (negative: fewer)
     */
    void prepare(long batch, Map<String, long[]> changed, long documentsAdded, Map<String, Moved> moves,
            List<String> leavingFiles);

    /**
     * Makes what {@link #prepare} recorded for {@code batch} so, and marks the index as reflecting {@code marker}.
     * Applying it again after a crash midway gives the same index.
     */
    void apply(long batch, String marker);

    /** Drops what {@link #prepare} recorded for a batch the catalog did not take. */
    void discard(long batch);

    /**
     * Brings the index to the catalog's last commit (batch {@code batch} of the root table {@code rootUuid}) when it
     * reflects that commit already or the one before with the changes of this one recorded; false when it cannot
     * (it must be rebuilt from the tables). Changes recorded for a later batch, one the catalog never took, are
     * dropped.
     *
     * @param recordable whether the commit is of a kind this index records ({@link CommitKind#indexesDocuments}):
     *     when it is not (a backfill, a scaled-out stream's commit, made by another process), changes recorded under
     *     its batch number are a crashed batch's that the catalog never took, and are dropped too
     */
    boolean catchUp(String rootUuid, long batch, boolean recordable);

    /** The commit the index reflects ({@link #marker(String, long)}); empty while it reflects none. */
    Optional<String> marker();

    /** Says the index reflects no commit: before it is rebuilt, and after a commit it does not follow (a backfill). */
    void unmark();

    /**
     * Forgets a data file that left the tables (or never joined them): no document's rows are in it any more, so its
     * ordinal may name another file.
     */
    void forget(String dataFile);

    /** Forgets every document and file (the index is rebuilt from the tables, or a rebuild derives them afresh). */
    void clear();

    /**
     * Adds one row to a document's rows while the index is rebuilt from the tables, a row at a time, in any order;
     * {@link #mark} makes them the documents' rows.
     *
     * @param rootRow whether the row is the document's root row (every document has one: it is counted with it)
     */
    void add(String key, long place, boolean rootRow);

    /**
     * Sets a document's rows at once, outside any commit: how a rebuild of the tables, which replays the whole history
     * in one batch, writes the index while it is unmarked; {@link #mark} then names the rebuild's commit. Returns the
     * rows the document had.
     */
    long[] set(String key, long[] places);

    /** Says the index, rebuilt from the tables ({@link #add}), reflects the commit {@code marker}. */
    void mark(String marker);

    @Override
    void close();
}
