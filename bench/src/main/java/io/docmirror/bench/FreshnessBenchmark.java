package io.docmirror.bench;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.docmirror.demo.DemoDataset;
import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.layout.CatalogPointers;
import io.docmirror.layout.LocalFileIO;
import io.docmirror.layout.MirrorLayout;
import io.docmirror.layout.MirrorSummary;
import io.docmirror.layout.MirrorTables;
import io.docmirror.mirror.FeedMirror;
import io.docmirror.mirror.MirrorConfig;
import io.docmirror.mirror.source.Checkpoint;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.Item;
import io.docmirror.store.StoreConfig;
import org.apache.iceberg.TableMetadataParser;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongFunction;

/**
 * Freshness of the streaming mirror: the store is written at a steady rate (realistic ~1 KB orders, one writer) while
 * the daemon runs with its default configuration, and for every document the benchmark measures the time from the
 * store's acknowledgement to the commit that makes it visible to a new query (a watcher polls the catalog every
 * 2 ms), after a warm-up of 5 s at the first rate. It reports p50, p99 and max per rate,
 * then the most the mirror sustains: the rate at which it catches up with a backlog, next to the rate one writer
 * puts those documents into the store, measured in the same run (a backlog of 200,000 documents). Usage:
 * {@code FreshnessBenchmark [seconds per rate] [workDir] [rates...]}, rates in documents a second (default 2000
 * 10000).
 */
public final class FreshnessBenchmark {
    private static final Duration WATCH_INTERVAL = Duration.ofMillis(2);
    private static final int BACKLOG = 200_000;
    /** Written at the first rate and not counted, so that the figures are the daemon's, not the JIT compiler's. */
    private static final Duration WARM_UP = Duration.ofSeconds(5);

    private FreshnessBenchmark() {
    }

    /** Freshness at one rate; latencies in milliseconds. */
    public record Phase(int targetRate, double achievedRate, long documents, double p50, double p99, double max) {
    }

    /** The most the mirror sustains: its catch-up rate over a backlog, and the store's write rate for it. */
    public record Capacity(long documents, double mirrorRate, double storeWriteRate) {
    }

    public record Result(List<Phase> phases, Capacity capacity) {
    }

    public static void main(String[] args) throws Exception {
        int seconds = args.length > 0 ? Integer.parseInt(args[0]) : 20;
        Path work = args.length > 1 ? Files.createDirectories(Path.of(args[1]))
                : Files.createTempDirectory("docmirror-freshness-bench");
        // Rates, then mirror.option=value arguments in place of the mirror's defaults.
        int firstOption = 2;
        while (firstOption < args.length && !args[firstOption].contains("=")) {
            firstOption++;
        }
        int[] rates = firstOption > 2 ? Arrays.stream(args, 2, firstOption).mapToInt(Integer::parseInt).toArray()
                : new int[] {2000, 10000};
        run(rates, Duration.ofSeconds(seconds), BACKLOG, work, MirrorOptionArguments.mirrorConfig(args, firstOption),
                System.out);
    }

    /**
     * @param backlog how many documents the capacity measurement writes and then mirrors
     * @param config the mirror daemon's configuration while the rates are measured
     */
    public static Result run(int[] rates, Duration perRate, int backlog, Path work, MirrorConfig config,
            PrintStream out) throws Exception {
        Path data = work.resolve("freshness-bench-data");
        Path mirrorDirectory = MirrorLayout.mirrorDirectory(data);
        // Only its generator is used: a million orders' worth of customers, so writes spread over every feed range.
        DemoDataset dataset = new DemoDataset(1_000_000);
        List<Phase> phases = new ArrayList<>();
        Capacity capacity;
        try (EmbeddedStore store = EmbeddedStore.open(data.resolve("store"),
                StoreConfig.defaults().withSyncWrites(false))) {
            ContainerProperties container = store.createContainer(ContainerProperties.of(DemoDataset.CONTAINER,
                    DemoDataset.PARTITION_KEY_PATH).withAnalyticalTtl(-1));
            long nextOrder = 0;
            try (FeedMirror mirror = new FeedMirror(store, mirrorDirectory, config, FlattenerConfig::defaults,
                    Clock.systemUTC())) {
                Thread daemon = new Thread(() -> {
                    try {
                        mirror.run();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }, "mirror-daemon");
                daemon.start();
                try {
                    nextOrder += measure(store, container, dataset, mirrorDirectory, rates[0], WARM_UP, nextOrder)
                            .documents();
                    for (int rate : rates) {
                        Phase phase = measure(store, container, dataset, mirrorDirectory, rate, perRate, nextOrder);
                        nextOrder += phase.documents();
                        phases.add(phase);
                        out.printf(Locale.ROOT, "at %,6d docs/s (achieved %,8.0f): %,9d docs, freshness p50 %6.0f "
                                        + "ms, p99 %6.0f ms, max %6.0f ms%n", rate, phase.achievedRate(),
                                phase.documents(), phase.p50(), phase.p99(), phase.max());
                    }
                } finally {
                    // Also when a write fails (a full disk): the daemon stops before the store closes under it.
                    mirror.stop();
                    daemon.join();
                }
            }
            capacity = capacity(store, dataset, mirrorDirectory, nextOrder, backlog);
        }
        out.printf(Locale.ROOT, "most sustained: the mirror catches up %,d docs at %,.0f docs/s; one writer puts them "
                        + "into the store at %,.0f docs/s (mirror/store ratio %.2f)%n", capacity.documents(),
                capacity.mirrorRate(), capacity.storeWriteRate(), capacity.mirrorRate() / capacity.storeWriteRate());
        return new Result(phases, capacity);
    }

    /** A write the watcher has not seen committed yet: its feed range, LSN and acknowledgement time. */
    private record Pending(long lsn, long ackedAt) {
    }

    private static Phase measure(EmbeddedStore store, ContainerProperties container, DemoDataset dataset,
            Path mirrorDirectory, int rate, Duration duration, long firstOrder) throws InterruptedException {
        return measure(container, mirrorDirectory, rate, duration, written -> store.createItem(DemoDataset.CONTAINER,
                dataset.generator().order(firstOrder + written, dataset.placedAt(firstOrder + written))));
    }

    /**
     * Freshness of {@code write}s at {@code rate} for {@code duration}: the time from each write's acknowledgement to
     * the commit of the demo's orders that makes it visible.
     *
     * @param write makes the {@code n}th write of the phase (from 0) and returns what the store acknowledged
     */
    static Phase measure(ContainerProperties container, Path mirrorDirectory, int rate, Duration duration,
            LongFunction<Item> write) throws InterruptedException {
        List<ArrayDeque<Pending>> pending = new ArrayList<>();
        for (int range = 0; range < container.logPartitions(); range++) {
            pending.add(new ArrayDeque<>());
        }
        List<Long> latencies = new ArrayList<>();
        Watcher watcher = new Watcher(mirrorDirectory, pending, latencies);
        Thread watching = new Thread(watcher, "commit-watcher");
        watching.start();
        long startedAt = System.nanoTime();
        long endAt = startedAt + duration.toNanos();
        long written = 0;
        while (System.nanoTime() < endAt) {
            long due = (System.nanoTime() - startedAt) * rate / 1_000_000_000L;
            if (written >= due) {
                // Not a spin: on two cores the writer must leave the daemon its share.
                LockSupport.parkNanos(100_000);
                continue;
            }
            Item item = write.apply(written);
            long ackedAt = System.nanoTime();
            ArrayDeque<Pending> queue = pending.get(container.logPartitionOf(item.partitionKey()));
            synchronized (queue) {
                queue.add(new Pending(item.lsn(), ackedAt));
            }
            written++;
        }
        double achieved = written / ((System.nanoTime() - startedAt) / 1e9);
        watcher.awaitAll(written);
        watching.interrupt();
        watching.join();
        long[] sorted = latencies.stream().mapToLong(Long::longValue).sorted().toArray();
        return new Phase(rate, achieved, written, percentile(sorted, 0.50), percentile(sorted, 0.99),
                sorted[sorted.length - 1] / 1e6);
    }

    private static double percentile(long[] sorted, double quantile) {
        return sorted[(int) Math.min(sorted.length - 1, Math.floor(quantile * sorted.length))] / 1e6;
    }

    /** Watches the mirror's newest commit and times each pending write its checkpoint covers. */
    private static final class Watcher implements Runnable {
        private static final ObjectMapper CHECKPOINTS = new ObjectMapper();

        private final Path mirrorDirectory;
        private final List<ArrayDeque<Pending>> pending;
        private final List<Long> latencies;
        private String seenPointer;

        Watcher(Path mirrorDirectory, List<ArrayDeque<Pending>> pending, List<Long> latencies) {
            this.mirrorDirectory = mirrorDirectory;
            this.pending = pending;
            this.latencies = latencies;
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

        synchronized void awaitAll(long documents) throws InterruptedException {
            long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
            while (latencies.size() < documents) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("The mirror did not catch up within 5 minutes: "
                            + latencies.size() + " of " + documents + " documents visible");
                }
                wait(WATCH_INTERVAL.toMillis());
            }
        }

        private synchronized void poll() {
            // One query of the catalog tells whether the root table moved; only then is its metadata read.
            String pointer = CatalogPointers.read(mirrorDirectory).locations()
                    .get(MirrorTables.table(DemoDataset.CONTAINER, DemoDataset.CONTAINER));
            if (pointer == null || pointer.equals(seenPointer)) {
                return;
            }
            long now = System.nanoTime();
            seenPointer = pointer;
            Map<String, String> summary = TableMetadataParser.read(new LocalFileIO(), pointer).currentSnapshot()
                    .summary();
            if (!summary.containsKey(MirrorSummary.CHECKPOINT)) {
                return;
            }
            Checkpoint checkpoint;
            try {
                checkpoint = CHECKPOINTS.readValue(summary.get(MirrorSummary.CHECKPOINT), Checkpoint.class);
            } catch (JsonProcessingException e) {
                throw new IllegalStateException("The mirror's checkpoint cannot be read", e);
            }
            Map<Integer, Long> positions = checkpoint.reachedPositions();
            for (int range = 0; range < pending.size(); range++) {
                long visibleUpTo = positions.getOrDefault(range, 0L);
                ArrayDeque<Pending> queue = pending.get(range);
                synchronized (queue) {
                    while (!queue.isEmpty() && queue.peek().lsn() <= visibleUpTo) {
                        latencies.add(now - queue.poll().ackedAt());
                    }
                }
            }
            notifyAll();
        }
    }

    /** Writes a backlog with the daemon stopped, then times the mirror catching up with it (flatten and commit). */
    private static Capacity capacity(EmbeddedStore store, DemoDataset dataset, Path mirrorDirectory, long firstOrder,
            int documents) {
        long startedAt = System.nanoTime();
        for (long index = firstOrder; index < firstOrder + documents; index++) {
            store.createItem(DemoDataset.CONTAINER, dataset.generator().order(index, dataset.placedAt(index)));
        }
        double writeSeconds = (System.nanoTime() - startedAt) / 1e9;
        startedAt = System.nanoTime();
        // Without compaction, which the sync would otherwise wait for when one falls due: whether one does within
        // the backlog is chance, and it would swing the rate by a factor of three.
        MirrorConfig noCompaction = MirrorConfig.defaults()
                .withCompaction(0, MirrorConfig.defaults().keepSnapshotsFor());
        try (FeedMirror mirror = new FeedMirror(store, mirrorDirectory, noCompaction, FlattenerConfig::defaults,
                Clock.systemUTC())) {
            FeedMirror.SyncResult synced = mirror.sync();
            if (synced.events() != documents) {
                throw new IllegalStateException("The catch-up mirrored " + synced.events() + " changes, not "
                        + documents);
            }
        }
        double mirrorSeconds = (System.nanoTime() - startedAt) / 1e9;
        return new Capacity(documents, documents / mirrorSeconds, documents / writeSeconds);
    }
}
