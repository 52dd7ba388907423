package io.docmirror.spark.backfill;

import io.docmirror.store.SnapshotInterval;
import io.docmirror.store.SnapshotPage;
import io.docmirror.store.http.HttpStoreClient;
import io.docmirror.store.http.RemoteSnapshot;
import io.docmirror.store.changelog.ChangeEvent;

import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

import static java.util.Objects.requireNonNull;

/**
 * The parts of a snapshot the store holds for the job (created by the driver, released when it is done): each part
 * an interval of one feed range's keys, read over the store's HTTP API by the executor that has it.
 */
final class SnapshotParts implements ContainerParts {
    /** How many documents one read asks the store for. */
    private static final int PAGE_SIZE = 1000;

    private final StoreAddress store;
    private final String container;
    private final String snapshotId;
    private final List<SnapshotInterval> intervals;

    SnapshotParts(StoreAddress store, String container, String snapshotId, List<SnapshotInterval> intervals) {
        this.store = requireNonNull(store, "store is null");
        this.container = requireNonNull(container, "container is null");
        this.snapshotId = requireNonNull(snapshotId, "snapshotId is null");
        this.intervals = List.copyOf(intervals);
    }

    @Override
    public int count() {
        return intervals.size();
    }

    @Override
    public void read(int part, Consumer<ChangeEvent> documents) {
        SnapshotInterval interval = intervals.get(part);
        try (HttpStoreClient client = store.client()) {
            // A reader of the driver's snapshot: closing it would release the snapshot for every task.
            RemoteSnapshot snapshot = client.snapshotReader(container, snapshotId);
            Optional<String> continuation = Optional.empty();
            do {
                SnapshotPage page = snapshot.read(interval, continuation, PAGE_SIZE);
                page.events().forEach(documents);
                continuation = page.continuation();
            } while (continuation.isPresent());
        }
    }
}
