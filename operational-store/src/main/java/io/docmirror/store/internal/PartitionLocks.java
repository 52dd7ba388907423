package io.docmirror.store.internal;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One write lock per log partition of a container. A write holds the locks of the log partitions it writes while it
 * reads what it changes, assigns its LSNs and queues its changes for the group commit; so LSNs follow the order in
 * which writes are queued, and each write sees the ones queued before it. The lock is released before the fsync:
 * the writes queued meanwhile share it.
 */
public final class PartitionLocks {
    private final ReentrantLock[] locks;

    public PartitionLocks(int logPartitions) {
        locks = new ReentrantLock[logPartitions];
        for (int index = 0; index < logPartitions; index++) {
            locks[index] = new ReentrantLock();
        }
    }

    /** Locks the log partitions in ascending order, so that two writers over overlapping ones cannot deadlock. */
    public Held lock(Collection<Integer> logPartitions) {
        List<ReentrantLock> held = new ArrayList<>();
        for (int partition : new TreeSet<>(logPartitions)) {
            locks[partition].lock();
            held.add(locks[partition]);
        }
        return new Held(held);
    }

    public Held lock(int logPartition) {
        return lock(List.of(logPartition));
    }

    /** Every log partition's lock: no write of the container is being built or queued while they are held. */
    public Held lockAll() {
        List<Integer> all = new ArrayList<>();
        for (int partition = 0; partition < locks.length; partition++) {
            all.add(partition);
        }
        return lock(all);
    }

    /** Locks held together; closing releases them in reverse order. */
    public static final class Held implements AutoCloseable {
        private final List<ReentrantLock> locks;

        private Held(List<ReentrantLock> locks) {
            this.locks = locks;
        }

        @Override
        public void close() {
            for (int index = locks.size() - 1; index >= 0; index--) {
                locks.get(index).unlock();
            }
        }
    }
}
