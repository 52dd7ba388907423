package io.docmirror.store;

import java.util.List;
import java.util.Optional;

/**
 * Reads of one consistent snapshot of a container's live items over all its log partitions (feed ranges), for
 * backfill: every change up to {@link #lsn} of a log partition is in what it returns, and none after it, whatever is
 * written meanwhile. Many readers, in many threads or processes, may read intervals of one snapshot at once.
 *
 * <p>A log partition is read as the single-machine backfill reads it: in the store's key order, skipping items whose
 * TTL had passed when the snapshot was taken, each item as {@code ChangeEvent.ofCurrentVersion}.
 */
public interface SnapshotReader {
    /** The most intervals one split gives: more than any job has tasks for one log partition. */
    int MAX_SPLIT_INTERVALS = 1024;

    /** The container the snapshot is of. */
    String container();

    /** How many log partitions the container has: they are numbered 0 to {@code logPartitions() - 1}. */
    int logPartitions();

    /**
     * The log partition's newest LSN in the snapshot (0 when nothing was ever written to it): a reader that applies
     * the change feed after it misses nothing and applies nothing twice.
     *
     * @throws StoreException 400 for a log partition the container does not have
     */
    long lsn(int logPartition);

    /**
     * Splits a log partition into at most {@code maxIntervals} (and at most {@value #MAX_SPLIT_INTERVALS})
     * contiguous intervals, in key order, which together hold each of its items exactly once. Cheap: the split points
     * come from a bounded sample of keys and the storage engine's size estimates, never from reading every item, so
     * intervals are of similar but not equal sizes (and may be empty).
     *
     * @throws StoreException 400 for a log partition the container does not have, or {@code maxIntervals} below 1
     */
    List<SnapshotInterval> split(int logPartition, int maxIntervals);

    /**
     * Up to {@code maxItems} items of the interval in key order, after {@code continuation} (from a page before)
     * or from the interval's start.
     *
     * @throws StoreException 400 for a malformed split point or continuation, or one outside the interval
     */
    SnapshotPage read(SnapshotInterval interval, Optional<String> continuation, int maxItems);
}
