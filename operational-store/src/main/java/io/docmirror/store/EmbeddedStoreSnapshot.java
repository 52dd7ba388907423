package io.docmirror.store;

import io.docmirror.store.changelog.ChangeEvent;
import io.docmirror.store.internal.ContainerState;
import io.docmirror.store.internal.KeyLayout;
import io.docmirror.store.internal.RocksStorage;
import io.docmirror.store.internal.StoredItem;
import io.docmirror.store.internal.TtlPolicy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * The embedded store's {@link StoreSnapshot}: one RocksDB snapshot, which holds every log partition's items and
 * log end as of one moment (each write puts both in one atomic batch). TTL is judged at the moment the snapshot was
 * taken, so that every reader of it sees the same items. Thread-safe: reads run concurrently, and {@link #close}
 * waits for those in flight, since a released RocksDB snapshot must not be read.
 */
final class EmbeddedStoreSnapshot implements StoreSnapshot {
    private final RocksStorage storage;
    private final ContainerState state;
    private final RocksStorage.Snapshot snapshot;
    private final long[] lsns;
    private final long nowSeconds;
    private final KeyRangeSplitter splitter;
    private final ReentrantReadWriteLock lifecycle = new ReentrantReadWriteLock();
    private boolean closed;

    private EmbeddedStoreSnapshot(RocksStorage storage, ContainerState state, RocksStorage.Snapshot snapshot,
            long[] lsns, long nowSeconds) {
        this.storage = storage;
        this.state = state;
        this.snapshot = snapshot;
        this.lsns = lsns;
        this.nowSeconds = nowSeconds;
        this.splitter = new KeyRangeSplitter(storage);
    }

    /** @param nowSeconds the time TTL is judged by, epoch seconds */
    static EmbeddedStoreSnapshot open(RocksStorage storage, ContainerState state, long nowSeconds) {
        RocksStorage.Snapshot snapshot = storage.snapshot();
        try {
            long[] lsns = new long[state.logPartitions()];
            for (int logPartition = 0; logPartition < lsns.length; logPartition++) {
                byte[] end = snapshot.get(storage.logEnds(), KeyLayout.logEndKey(state.containerId(), logPartition));
                lsns[logPartition] = end == null ? 0 : KeyLayout.readLong(end);
            }
            return new EmbeddedStoreSnapshot(storage, state, snapshot, lsns, nowSeconds);
        } catch (RuntimeException e) {
            snapshot.close();
            throw e;
        }
    }

    @Override
    public String container() {
        return state.name();
    }

    @Override
    public int logPartitions() {
        return lsns.length;
    }

    @Override
    public long lsn(int logPartition) {
        state.checkLogPartition(logPartition);
        return lsns[logPartition];
    }

    @Override
    public List<SnapshotInterval> split(int logPartition, int maxIntervals) {
        state.checkLogPartition(logPartition);
        if (maxIntervals < 1) {
            throw new StoreException(StoreErrorCode.BAD_REQUEST, "Cannot split log partition " + logPartition
                    + " of container " + container() + " into " + maxIntervals + " intervals: at least 1");
        }
        byte[] prefix = KeyLayout.logPartitionPrefix(state.containerId(), logPartition);
        SnapshotKeys keys = new SnapshotKeys(container(), prefix);
        List<byte[]> points = whileOpen(() -> splitter.splitPoints(snapshot, prefix, KeyLayout.prefixEnd(prefix),
                Math.min(maxIntervals, MAX_SPLIT_INTERVALS)));
        List<SnapshotInterval> intervals = new ArrayList<>(points.size() + 1);
        Optional<String> from = Optional.empty();
        for (byte[] point : points) {
            Optional<String> until = Optional.of(keys.encode(point));
            intervals.add(SnapshotInterval.of(logPartition, from, until));
            from = until;
        }
        intervals.add(SnapshotInterval.of(logPartition, from, Optional.empty()));
        return intervals;
    }

    @Override
    public SnapshotPage read(SnapshotInterval interval, Optional<String> continuation, int maxItems) {
        int logPartition = interval.logPartition();
        state.checkLogPartition(logPartition);
        if (maxItems < 1) {
            throw new StoreException(StoreErrorCode.BAD_REQUEST, "Cannot read a snapshot of container " + container()
                    + ": max items " + maxItems + " must be at least 1");
        }
        byte[] prefix = KeyLayout.logPartitionPrefix(state.containerId(), logPartition);
        SnapshotKeys keys = new SnapshotKeys(container(), prefix);
        byte[] from = interval.from().map(token -> keys.decode(token, "split point")).orElse(prefix);
        byte[] until = interval.until().map(token -> keys.decode(token, "split point"))
                .orElse(KeyLayout.prefixEnd(prefix));
        if (Arrays.compareUnsigned(from, until) > 0) {
            throw new StoreException(StoreErrorCode.BAD_REQUEST, "Cannot read " + interval + " of container "
                    + container() + ": its start is after its end");
        }
        byte[] start = from;
        if (continuation.isPresent()) {
            byte[] last = keys.decode(continuation.get(), "continuation");
            if (Arrays.compareUnsigned(last, from) < 0 || Arrays.compareUnsigned(last, until) >= 0) {
                throw new StoreException(StoreErrorCode.BAD_REQUEST, "Cannot read " + interval + " of container "
                        + container() + ": continuation '" + continuation.get() + "' is outside the interval; use "
                        + "the one its last page gave");
            }
            start = Arrays.copyOf(last, last.length + 1); // the smallest key after the last one read
        }
        byte[] first = start;
        return whileOpen(() -> page(first, until, maxItems, keys));
    }

    private SnapshotPage page(byte[] start, byte[] until, int maxItems, SnapshotKeys keys) {
        List<ChangeEvent> events = new ArrayList<>(Math.min(maxItems, 1024));
        byte[] lastKey = null;
        try (RocksStorage.BoundedIterator iterator = snapshot.iterate(storage.items(), start, until)) {
            for (; iterator.valid() && events.size() < maxItems; iterator.next()) {
                lastKey = iterator.key();
                StoredItem stored = StoredItem.decode(iterator.value());
                if (!TtlPolicy.isExpired(state.expiresAt(stored), nowSeconds)) {
                    events.add(ChangeEvent.ofCurrentVersion(container(), state.partitionKeyValue(lastKey, stored),
                            KeyLayout.itemId(lastKey), stored.createdLsn() == stored.lsn(), stored.lsn(),
                            stored.tsSeconds() * 1000, stored.json()));
                }
            }
            return new SnapshotPage(events, iterator.valid() && lastKey != null
                    ? Optional.of(keys.encode(lastKey)) : Optional.empty());
        }
    }

    /** Runs a read of the RocksDB snapshot, unless it was released. */
    private <T> T whileOpen(java.util.function.Supplier<T> read) {
        lifecycle.readLock().lock();
        try {
            if (closed) {
                throw new StoreException(StoreErrorCode.NOT_FOUND, "Cannot read the snapshot of container "
                        + container() + ": it was released");
            }
            return read.get();
        } finally {
            lifecycle.readLock().unlock();
        }
    }

    @Override
    public void close() {
        lifecycle.writeLock().lock();
        try {
            if (!closed) {
                closed = true;
                snapshot.close();
            }
        } finally {
            lifecycle.writeLock().unlock();
        }
    }
}
