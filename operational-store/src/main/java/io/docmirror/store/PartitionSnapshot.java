package io.docmirror.store;

import io.docmirror.store.changelog.ChangeEvent;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The live items of one log partition (feed range) exactly as of one LSN, for backfill: each item as the change that
 * made its current version. Every change up to {@link #lsn()} is in what the snapshot returns and none after it, so a
 * reader that applies the change feed from {@link #lsn()} on misses nothing and applies nothing twice. Items written
 * while the snapshot is read are not seen. Close it when done: the store keeps what the snapshot needs until then.
 *
 * <p>The whole log partition read as one interval of a {@link StoreSnapshot}, which it owns.
 */
public final class PartitionSnapshot implements AutoCloseable {
    private final StoreSnapshot snapshot;
    private final SnapshotInterval partition;
    private Optional<String> continuation = Optional.empty();
    private boolean exhausted;

    private PartitionSnapshot(StoreSnapshot snapshot, int logPartition) {
        this.snapshot = snapshot;
        this.partition = SnapshotInterval.wholePartition(logPartition);
    }

    /**
     * One log partition of {@code snapshot}, which the partition snapshot closes (also when it cannot be made).
     *
     * @throws StoreException 400 for a log partition out of range
     */
    static PartitionSnapshot open(StoreSnapshot snapshot, int logPartition) {
        try {
            snapshot.lsn(logPartition); // checks the log partition
            return new PartitionSnapshot(snapshot, logPartition);
        } catch (RuntimeException e) {
            snapshot.close();
            throw e;
        }
    }

    public String container() {
        return snapshot.container();
    }

    public int logPartition() {
        return partition.logPartition();
    }

    /** The log partition's newest LSN in the snapshot (0 when nothing was ever written to it). */
    public long lsn() {
        return snapshot.lsn(partition.logPartition());
    }

    /** Up to {@code maxItems} further items; an empty list once every item was returned. */
    public List<ChangeEvent> next(int maxItems) {
        List<ChangeEvent> items = new ArrayList<>(Math.min(maxItems, 1024));
        while (!exhausted && items.size() < maxItems) {
            SnapshotPage page = snapshot.read(partition, continuation, maxItems - items.size());
            items.addAll(page.events());
            continuation = page.continuation();
            exhausted = continuation.isEmpty();
        }
        return items;
    }

    @Override
    public void close() {
        snapshot.close();
    }
}
