package io.docmirror.store;

import io.docmirror.store.changelog.ChangeEvent;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * What several tests need: a store whose time they control, the whole change log of a container, a snapshot of its
 * items, and waiting for what a background thread does.
 */
public final class StoreTesting {
    private StoreTesting() {
    }

    /**
     * A store on {@code directory} for tests that drive time themselves: writes are not fsynced, time is
     * {@code clock}, and no background reaper runs (expired items are invisible, and removed only when a test asks).
     */
    public static EmbeddedStore openWithClock(Path directory, Clock clock) {
        return EmbeddedStore.open(directory, StoreConfig.defaults().withSyncWrites(false), clock, false);
    }

    public static List<ChangeEvent> changeLog(StoreClient store, String container) {
        List<ChangeEvent> events = new ArrayList<>();
        int partitions = store.readContainer(container).logPartitions();
        for (int partition = 0; partition < partitions; partition++) {
            long after = 0;
            while (true) {
                ChangeLogPage page = store.readChangeLog(container, partition, after, 1000);
                if (page.events().isEmpty()) {
                    break;
                }
                events.addAll(page.events());
                after = page.events().get(page.events().size() - 1).lsn();
            }
        }
        return events;
    }

    /** Every live item of the container, as (id, JSON) in scan order. */
    public static List<Item> allItems(StoreClient store, String container) {
        List<Item> items = new ArrayList<>();
        int partitions = store.readContainer(container).logPartitions();
        for (int partition = 0; partition < partitions; partition++) {
            java.util.Optional<String> continuation = java.util.Optional.empty();
            do {
                ItemPage page = store.scanItems(container, partition, continuation, 500);
                items.addAll(page.items());
                continuation = page.continuation();
            }
            while (continuation.isPresent());
        }
        return items;
    }

    /**
     * Observes until {@code done} holds for what was observed, and returns that; fails after {@code deadline} naming
     * the last observation. A bound on waiting for a background thread, not a timing assertion.
     */
    public static <T> T await(String what, Duration deadline, Supplier<T> observe, Predicate<T> done)
            throws InterruptedException {
        long end = System.nanoTime() + deadline.toNanos();
        T seen = observe.get();
        while (!done.test(seen)) {
            if (System.nanoTime() > end) {
                throw new AssertionError("Waited " + deadline + " until " + what + "; saw " + seen);
            }
            Thread.sleep(50);
            seen = observe.get();
        }
        return seen;
    }
}
