package io.docmirror.store.internal;

import io.docmirror.store.GroupCommitStatistics;
import io.docmirror.store.StoreErrorCode;
import io.docmirror.store.StoreException;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Group commit: concurrent writers share one synced RocksDB write. A writer queues its transaction's changes while
 * it holds its log partitions' locks (so the queue holds each partition's writes in LSN order), releases them, and
 * {@link #awaitDurable waits}: the first waiter to get the sync lock writes everything queued by then as one
 * {@link WriteBatch} with one fsync, and the waiters behind it find their transactions durable. RocksDB applies a
 * batch atomically, so after a crash the store holds a prefix of the queue: no LSN gap, and every transaction
 * acknowledged (durable before {@code awaitDurable} returned) is there.
 *
 * <p>A failed write fails its group and everything queued after it (those transactions were built on the failed
 * ones), and the store refuses writes from then on: it must be reopened, which reads its state back from disk.
 */
public final class GroupCommitter {
    /** One queued transaction: its changes, and what to do once they are durable (advance log ends, forget them). */
    public static final class Commit {
        private final StagedChanges changes;
        private final Runnable onDurable;
        // Both guarded by the committer's sync lock.
        private boolean durable;
        private StoreException failure;

        private Commit(StagedChanges changes, Runnable onDurable) {
            this.changes = changes;
            this.onDurable = onDurable;
        }
    }

    private final RocksStorage storage;
    private final ReentrantLock syncLock = new ReentrantLock();
    private final Object queueLock = new Object();
    // Guarded by queueLock.
    private List<Commit> queue = new ArrayList<>();
    private StoreException failure;
    private boolean closed;

    private final AtomicLong groups = new AtomicLong();
    private final AtomicLong transactions = new AtomicLong();
    private final AtomicLongArray groupsBySize = new AtomicLongArray(GroupCommitStatistics.SIZE_BOUNDS.size());

    public GroupCommitter(RocksStorage storage) {
        this.storage = storage;
    }

    /**
     * Queues a transaction's changes. The caller holds the locks of the log partitions they write, and calls
     * {@link #awaitDurable} after releasing them.
     *
     * @throws StoreException 503 when an earlier write failed or the store is closed
     */
    public Commit enqueue(StagedChanges changes, Runnable onDurable) {
        Commit commit = new Commit(changes, onDurable);
        try {
            changes.prepareIfLarge();
        } catch (RocksDBException e) {
            // The caller has published the transaction's items and LSNs already: like a failed write, this one
            // leaves the store to be reopened.
            StoreException failed = new StoreException(StoreErrorCode.INTERNAL_ERROR, "Cannot build a write batch: "
                    + e.getMessage(), e);
            synchronized (queueLock) {
                failure = failed;
            }
            throw refused(failed);
        }
        synchronized (queueLock) {
            if (failure != null || closed) {
                changes.release();
            }
            if (failure != null) {
                throw refused(failure);
            }
            if (closed) {
                throw new StoreException(StoreErrorCode.UNAVAILABLE, "Cannot write: the store is closed");
            }
            queue.add(commit);
        }
        return commit;
    }

    /**
     * Returns once the transaction is durable, writing the queued group itself if no other writer is.
     *
     * @throws StoreException 503 when the write of its group failed
     */
    public void awaitDurable(Commit commit) {
        syncLock.lock();
        try {
            if (!commit.durable && commit.failure == null) {
                writeQueued();
            }
            if (commit.failure != null) {
                throw refused(commit.failure);
            }
        } finally {
            syncLock.unlock();
        }
    }

    /** Makes everything queued so far durable (before a container's rows are deleted, or the store closes). */
    public void drain() {
        syncLock.lock();
        try {
            writeQueued();
        } finally {
            syncLock.unlock();
        }
    }

    /** Drains the queue and refuses further writes. */
    public void close() {
        synchronized (queueLock) {
            closed = true;
        }
        drain();
    }

    public GroupCommitStatistics statistics() {
        List<Long> upTo = new ArrayList<>();
        long cumulative = 0;
        for (int index = 0; index < groupsBySize.length(); index++) {
            cumulative += groupsBySize.get(index);
            upTo.add(cumulative);
        }
        return new GroupCommitStatistics(groups.get(), transactions.get(), upTo);
    }

    /** Writes the queued transactions as one synced batch. The caller holds the sync lock. */
    private void writeQueued() {
        List<Commit> group;
        StoreException earlier;
        synchronized (queueLock) {
            group = queue;
            queue = new ArrayList<>();
            earlier = failure;
        }
        if (group.isEmpty()) {
            return;
        }
        try {
            if (earlier != null) {
                group.forEach(commit -> commit.failure = earlier);
                return;
            }
            write(group);
        } finally {
            group.forEach(commit -> commit.changes.release());
        }
        for (Commit commit : group) {
            commit.onDurable.run();
            commit.durable = true;
        }
        record(group.size());
    }

    /** A transaction alone is written from its own batch when it has one; a group is copied into one batch. */
    private void write(List<Commit> group) {
        WriteBatch own = group.size() == 1 ? group.get(0).changes.prepared() : null;
        try {
            if (own != null) {
                storage.write(own);
                return;
            }
            try (WriteBatch batch = new WriteBatch()) {
                for (Commit commit : group) {
                    commit.changes.applyTo(batch);
                }
                storage.write(batch);
            }
        } catch (RocksDBException | StoreException e) {
            StoreException failed = e instanceof StoreException store ? store : new StoreException(
                    StoreErrorCode.INTERNAL_ERROR, "Cannot build a write batch: " + e.getMessage(), e);
            synchronized (queueLock) {
                failure = failed;
            }
            group.forEach(commit -> commit.failure = failed);
            throw refused(failed);
        }
    }

    private void record(int size) {
        groups.incrementAndGet();
        transactions.addAndGet(size);
        List<Integer> bounds = GroupCommitStatistics.SIZE_BOUNDS;
        for (int index = 0; index < bounds.size(); index++) {
            if (size <= bounds.get(index)) {
                groupsBySize.incrementAndGet(index);
                return;
            }
        }
    }

    private static StoreException refused(StoreException cause) {
        return new StoreException(StoreErrorCode.UNAVAILABLE, "Cannot write: a write to the store failed ("
                + cause.getMessage() + "); it refuses writes until it is reopened", cause);
    }
}
