package io.docmirror.store;

import io.docmirror.store.changelog.ChangeLogEntry;
import io.docmirror.store.internal.ContainerState;
import io.docmirror.store.internal.KeyLayout;
import io.docmirror.store.internal.RocksStorage;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

import java.time.Clock;

/**
 * Change-log retention ({@code store.change-log.retention-ms} and {@code -events}): removes the events that have
 * passed it, and refuses reads from before a log partition's start with {@link StoreErrorCode#GONE}, never a silent
 * gap. Only durable events are ever removed: the new start never passes the durable end.
 */
final class ChangeLogRetention {
    private final RocksStorage storage;
    private final ContainerCatalog catalog;
    private final StoreConfig config;
    private final Clock clock;

    ChangeLogRetention(RocksStorage storage, ContainerCatalog catalog, StoreConfig config, Clock clock) {
        this.storage = storage;
        this.catalog = catalog;
        this.config = config;
        this.clock = clock;
    }

    static void checkRetained(ContainerState state, int logPartition, long afterLsn) {
        long logStart = state.logStart(logPartition);
        if (afterLsn < logStart) {
            throw new StoreException(StoreErrorCode.GONE, "Cannot read the change log of container " + state.name()
                    + ", log partition " + logPartition + ", after LSN " + afterLsn + ": events up to LSN " + logStart
                    + " have passed the change log's retention; the oldest available position is after LSN "
                    + logStart);
        }
    }

    /**
     * Removes change events that have passed the log's retention ({@code store.change-log.retention-ms} and
     * {@code -events}), at most {@code maxEvents} per log partition. Readers learn of it at once: the log's start
     * moves before the events go, and a read from before the start fails with {@link StoreErrorCode#GONE}.
     *
     * @return how many events were removed
     */
    long trim(int maxEvents) {
        long removed = 0;
        long cutoff = config.changeLogRetentionMs() < 0 ? Long.MIN_VALUE : clock.millis() - config.changeLogRetentionMs();
        for (ContainerState state : catalog.states()) {
            for (int partition = 0; partition < state.properties().logPartitions(); partition++) {
                long start = state.logStart(partition);
                long end = state.logEnd(partition);
                long newStart = config.changeLogRetentionEvents() < 0
                        ? start
                        : Math.max(start, end - config.changeLogRetentionEvents());
                newStart = Math.min(newStart, start + maxEvents);
                if (cutoff != Long.MIN_VALUE) {
                    newStart = Math.max(newStart, lastEventBefore(state, partition, newStart, end,
                            Math.min(end, start + maxEvents), cutoff));
                }
                if (newStart > start) {
                    state.advanceLogStart(partition, newStart);
                    try (WriteBatch batch = new WriteBatch()) {
                        batch.deleteRange(storage.changeLog(), KeyLayout.changeLogKey(state.containerId(), partition,
                                start + 1), KeyLayout.changeLogKey(state.containerId(), partition, newStart + 1));
                        batch.put(storage.logEnds(), KeyLayout.logStartKey(state.containerId(), partition),
                                KeyLayout.longValue(newStart));
                        storage.write(batch);
                    } catch (RocksDBException e) {
                        throw new StoreException(StoreErrorCode.UNAVAILABLE, "Cannot trim the change log of "
                                + state.name() + ": " + e.getMessage(), e);
                    }
                    removed += newStart - start;
                }
            }
        }
        return removed;
    }

    /** The LSN of the last event after {@code from}, up to {@code limit}, committed before {@code cutoff}. */
    private long lastEventBefore(ContainerState state, int partition, long from, long end, long limit, long cutoff) {
        long last = from;
        byte[] first = KeyLayout.changeLogKey(state.containerId(), partition, from + 1);
        byte[] until = KeyLayout.changeLogKey(state.containerId(), partition, Math.min(end, limit) + 1);
        try (var iterator = storage.iterate(storage.changeLog(), first, until)) {
            // Events of a partition are committed in LSN order, so their times only rise: stop at the first young one.
            for (; iterator.valid(); iterator.next()) {
                if (ChangeLogEntry.ts(iterator.value()) >= cutoff) {
                    break;
                }
                last = KeyLayout.changeLogLsn(iterator.key());
            }
        }
        return last;
    }
}
