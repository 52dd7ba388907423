package io.docmirror.feed.processor;

import io.docmirror.feed.ContinuationToken;
import io.docmirror.store.StoreClient;
import io.docmirror.store.StoreTesting;
import io.docmirror.store.changelog.ChangeEvent;

import java.time.Duration;
import java.util.HashSet;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.BooleanSupplier;

/**
 * Helpers for processor tests: short timings, every event of a container, a lease's checkpoint, and waiting for a
 * condition.
 */
final class ProcessorTesting {
    private ProcessorTesting() {
    }

    static ProcessorOptions fastOptions(String workerId) {
        return ProcessorOptions.defaults("test", workerId).withTimings(Duration.ofMillis(2000), Duration.ofMillis(200),
                Duration.ofMillis(200), Duration.ofMillis(20), Duration.ofMillis(50));
    }

    /** A change's identity in these tests: partition key, id and LSN. */
    static String key(ChangeEvent event) {
        return event.partitionKey() + "/" + event.id() + "/" + event.lsn();
    }

    /** The keys of every change in the container's change log. */
    static Set<String> allEvents(StoreClient store, String container) {
        Set<String> events = new HashSet<>();
        for (ChangeEvent event : StoreTesting.changeLog(store, container)) {
            events.add(key(event));
        }
        return events;
    }

    /** The LSN of the last change checkpointed in the lease's feed range; empty before its first checkpoint. */
    static OptionalLong checkpointLsn(Lease lease) {
        if (lease.continuation() == null) {
            return OptionalLong.empty();
        }
        Long lsn = ContinuationToken.decode(lease.continuation()).positions().get(lease.logPartition());
        return lsn == null ? OptionalLong.empty() : OptionalLong.of(lsn);
    }

    /** Polls until the condition holds; fails after the timeout. Not a timing assertion: only a bound on waiting. */
    static void await(String what, Duration timeout, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("Timed out after " + timeout + " waiting until " + what);
            }
            Thread.sleep(20);
        }
    }
}
