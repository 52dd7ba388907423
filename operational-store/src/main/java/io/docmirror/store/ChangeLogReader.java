package io.docmirror.store;

import io.docmirror.store.changelog.ChangeEvent;
import io.docmirror.store.changelog.ChangeLogEntry;
import io.docmirror.store.internal.ContainerState;
import io.docmirror.store.internal.KeyLayout;
import io.docmirror.store.internal.RocksStorage;

import java.util.ArrayList;
import java.util.List;

/**
 * Reads of the change log, one log partition at a time, up to its durable end: an event is read only once the
 * write that made it was acknowledged. Also tells how large each container's log is.
 */
final class ChangeLogReader {
    private final RocksStorage storage;
    private final ContainerCatalog catalog;

    ChangeLogReader(RocksStorage storage, ContainerCatalog catalog) {
        this.storage = storage;
        this.catalog = catalog;
    }

    ChangeLogPage read(String container, int logPartition, long afterLsn, int maxEvents) {
        ContainerState state = catalog.state(container);
        state.checkLogPartition(logPartition);
        long logEnd = state.logEnd(logPartition);
        long logStart = state.logStart(logPartition);
        ChangeLogRetention.checkRetained(state, logPartition, afterLsn);
        List<ChangeEvent> events = new ArrayList<>();
        byte[] from = KeyLayout.changeLogKey(state.containerId(), logPartition, Math.max(0, afterLsn) + 1);
        byte[] until = KeyLayout.prefixEnd(KeyLayout.logPartitionPrefix(state.containerId(), logPartition));
        try (var iterator = storage.iterate(storage.changeLog(), from, until)) {
            for (; iterator.valid() && events.size() < maxEvents; iterator.next()) {
                if (KeyLayout.changeLogLsn(iterator.key()) > logEnd) {
                    break;
                }
                events.add(ChangeLogEntry.decode(iterator.value()));
            }
        }
        // Retention may have removed events while we read; then what we read has a gap, and the reader must know.
        ChangeLogRetention.checkRetained(state, logPartition, afterLsn);
        return new ChangeLogPage(logPartition, events, logStart, logEnd);
    }

    /** The events a container's change log holds now, over all its log partitions. */
    long retainedEvents(String container) {
        ContainerState state = catalog.state(container);
        long events = 0;
        for (int partition = 0; partition < state.logPartitions(); partition++) {
            events += state.logEnd(partition) - state.logStart(partition);
        }
        return events;
    }

    /** RocksDB's estimate of the bytes a container's change log takes, memtables included (no compaction). */
    long approximateBytes(String container) {
        byte[] prefix = KeyLayout.containerPrefix(catalog.state(container).containerId());
        return storage.approximateSize(storage.changeLog(), prefix, KeyLayout.prefixEnd(prefix));
    }
}
