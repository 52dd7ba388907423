package io.docmirror.flink;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.LongStream;

/**
 * Times changes from their send to the first commit that holds them, as a query would see it: a change is held once
 * the root table's last commit has its partition's offset past the change's. Polls the root table every 5 ms.
 */
final class FreshnessWatcher implements Runnable {
    private static final Duration WATCH_INTERVAL = Duration.ofMillis(5);

    private final Path mirror;
    private final String container;
    private final String topic;
    /** Per partition, the changes sent but not yet seen committed, in offset order: {offset, sent at}. */
    private final Map<Integer, ArrayDeque<long[]>> pending = new HashMap<>();
    private final LongStream.Builder latencies = LongStream.builder();
    private long timed;
    private CommittedOffsets seen = CommittedOffsets.NONE;

    FreshnessWatcher(Path mirror, String container, String topic) {
        this.mirror = mirror;
        this.container = container;
        this.topic = topic;
    }

    /**
     * A change the broker acknowledged at {@code offset} of {@code partition}, sent at {@code sentAt}
     * ({@link System#nanoTime}). The producer acknowledges a partition's records in offset order.
     */
    synchronized void sent(int partition, long offset, long sentAt) {
        if (offset < seen.next(topic, partition)) {
            // Committed before its acknowledgement arrived here.
            time(System.nanoTime() - sentAt);
        } else {
            pending.computeIfAbsent(partition, any -> new ArrayDeque<>()).add(new long[] {offset, sentAt});
        }
    }

    @Override
    public void run() {
        while (!Thread.currentThread().isInterrupted()) {
            poll();
            try {
                Thread.sleep(WATCH_INTERVAL.toMillis());
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** Waits until {@code changes} are timed; their latencies in nanoseconds, sorted. */
    synchronized long[] awaitAll(long changes, Duration limit) throws InterruptedException {
        long deadline = System.nanoTime() + limit.toNanos();
        while (timed < changes) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("The tables of " + mirror + " did not hold every change within "
                        + limit + ": " + timed + " of " + changes + " committed; the last commit holds offsets "
                        + seen.offsets());
            }
            wait(WATCH_INTERVAL.toMillis());
        }
        return latencies.build().sorted().toArray();
    }

    private void poll() {
        CommittedOffsets now = CommittedOffsets.read(mirror, container);
        long seenAt = System.nanoTime();
        synchronized (this) {
            if (now.metadata() == null || now.metadata().equals(seen.metadata())) {
                return;
            }
            seen = now;
            pending.forEach((partition, changes) -> {
                long next = now.next(topic, partition);
                while (!changes.isEmpty() && changes.peek()[0] < next) {
                    time(seenAt - changes.poll()[1]);
                }
            });
            notifyAll();
        }
    }

    private void time(long latency) {
        latencies.add(latency);
        timed++;
    }
}
