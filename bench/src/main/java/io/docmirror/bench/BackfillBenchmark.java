package io.docmirror.bench;

import io.docmirror.demo.DemoDataset;
import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.layout.MirrorLayout;
import io.docmirror.mirror.Backfill;
import io.docmirror.mirror.FeedMirror;
import io.docmirror.mirror.MirrorConfig;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.StoreConfig;

import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Backfill of the demo's orders from the store into the mirror (root table, line items child table, history) against
 * DuckDB converting the same orders from JSON Lines into one Parquet file with {@code COPY (SELECT * FROM
 * read_json_auto(...)) TO ... (FORMAT parquet)}, in the same run; plus the backfill's peak heap. Usage:
 * {@code BackfillBenchmark [orders] [workDir] [mirror.option=value ...]}, the options (say
 * {@code mirror.parquet.compression=snappy}, DuckDB's codec) in place of the mirror's defaults.
 */
public final class BackfillBenchmark {
    private BackfillBenchmark() {
    }

    /**
     * @param backfillCpuSeconds the process's CPU time during the backfill, every thread (two cores give at most
     *     twice the wall time)
     * @param duckDbCpuSeconds the process's CPU time during DuckDB's conversion (DuckDB runs in-process)
     * @param peakHeapBytes the most heap in use at any sample (every 10 ms) during the backfill, garbage included
     * @param peakLiveHeapBytes the most heap in use right after a garbage collection during the backfill: what the
     *     backfill holds, which must stay bounded whatever the container's size
     */
    public record Result(long documents, double backfillSeconds, double backfillCpuSeconds, double duckDbSeconds,
            double duckDbCpuSeconds, long mirrorRows, long mirrorBytes, long historyBytes, long duckDbRows,
            long duckDbBytes, long peakHeapBytes, long peakLiveHeapBytes) {
        public double ratio() {
            return backfillSeconds / duckDbSeconds;
        }
    }

    public static void main(String[] args) throws Exception {
        int orders = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        Path work = args.length > 1 ? Files.createDirectories(Path.of(args[1]))
                : Files.createTempDirectory("docmirror-backfill-bench");
        run(orders, work, MirrorOptionArguments.mirrorConfig(args, 2), System.out);
    }

    public static Result run(int orders, Path work, PrintStream out) throws Exception {
        return run(orders, work, MirrorConfig.defaults(), out);
    }

    public static Result run(int orders, Path work, MirrorConfig config, PrintStream out) throws Exception {
        DemoDataset dataset = new DemoDataset(orders);
        Path data = work.resolve("backfill-bench-data");
        Path jsonLines = OrdersJsonLines.write(dataset, work.resolve("orders.jsonl"));
        out.printf(Locale.ROOT, "%,d orders, %.0f MB of JSON Lines%n", orders, Files.size(jsonLines) / 1e6);

        Result result;
        try (EmbeddedStore store = EmbeddedStore.open(data.resolve("store"),
                StoreConfig.defaults().withSyncWrites(false))) {
            dataset.load(store, done -> { });
            System.gc();
            HeapSampler heap = HeapSampler.start();
            Stopwatch backfilling = Stopwatch.start();
            Backfill.Result backfill = new Backfill(store, MirrorLayout.mirrorDirectory(data), config,
                    FlattenerConfig.defaults(DemoDataset.CONTAINER), Clock.systemUTC())
                    .run(DemoDataset.CONTAINER, Backfill.Listener.NONE);
            Stopwatch.Lap backfilled = backfilling.lap();
            double backfillSeconds = backfilled.seconds();
            double backfillCpuSeconds = backfilled.cpuSeconds();
            heap.stop();
            out.printf(Locale.ROOT, "backfill: %,d documents in %.1f s (%,.0f docs/s), %.1f s of CPU; peak heap %,d MB "
                            + "(%,d MB live after a collection)%n", backfill.items(), backfillSeconds,
                    backfill.items() / backfillSeconds, backfillCpuSeconds, heap.peak() >> 20,
                    heap.peakLive() >> 20);
            MirroredTables tables = MirroredTables.read(MirrorLayout.mirrorDirectory(data), DemoDataset.CONTAINER,
                    out);

            Path duckDbFile = work.resolve("duckdb-orders.parquet");
            Stopwatch converting = Stopwatch.start();
            long duckDbRows;
            try (Connection duckDb = DriverManager.getConnection("jdbc:duckdb:");
                    Statement statement = duckDb.createStatement()) {
                statement.execute("COPY (SELECT * FROM read_json_auto('" + jsonLines + "')) TO '" + duckDbFile
                        + "' (FORMAT parquet)");
                Stopwatch.Lap converted = converting.lap();
                double duckDbSeconds = converted.seconds();
                double duckDbCpuSeconds = converted.cpuSeconds();
                try (ResultSet count = statement.executeQuery("SELECT count(*) FROM '" + duckDbFile + "'")) {
                    count.next();
                    duckDbRows = count.getLong(1);
                }
                out.printf(Locale.ROOT, "DuckDB COPY read_json_auto -> Parquet: %,d rows (line items as a nested "
                                + "LIST of STRUCTs in one table) in %.1f s (%,.0f docs/s), %.1f s of CPU, %,.0f MB%n",
                        duckDbRows, duckDbSeconds, orders / duckDbSeconds, duckDbCpuSeconds,
                        Files.size(duckDbFile) / 1e6);
                result = new Result(backfill.items(), backfillSeconds, backfillCpuSeconds, duckDbSeconds,
                        duckDbCpuSeconds, tables.totalRows(), tables.bytes(), tables.historyBytes(), duckDbRows,
                        Files.size(duckDbFile), heap.peak(), heap.peakLive());
            }
            // The path README gives users, `import` then `mirror sync`: on an empty mirror a long change feed is
            // loaded from a snapshot (mirror.initial-load.snapshot-above-events), and a sync compacts when due.
            // Each way twice, alternately, so that neither is measured with the other's JIT warm-up; the second
            // run of each counts.
            double firstSync = 0;
            double replayed = 0;
            for (int round = 1; round <= 2; round++) {
                firstSync = firstSync(store, work.resolve("first-sync-" + round), config, out,
                        "first sync (mirror sync on an empty mirror), run " + round);
                replayed = firstSync(store, work.resolve("replayed-sync-" + round), config.withSnapshotLoadAbove(-1),
                        out, "first sync replaying every change instead (snapshot-above-events -1), run " + round);
            }
            out.printf(Locale.ROOT, "ratio first sync / backfill: %.2f (target <= 1.2)%n",
                    firstSync / result.backfillSeconds());
            out.printf(Locale.ROOT, "ratio replayed first sync / backfill: %.2f%n", replayed / result.backfillSeconds());
        }
        out.printf(Locale.ROOT, "ratio backfill / DuckDB: %.2f (target <= 1.0); CPU time ratio %.2f%n", result.ratio(),
                result.backfillCpuSeconds() / result.duckDbCpuSeconds());
        return result;
    }

    /** Times one {@code FeedMirror.sync} of the store into an empty mirror; returns its seconds. */
    private static double firstSync(EmbeddedStore store, Path mirrorDirectory, MirrorConfig config, PrintStream out,
            String what) {
        Stopwatch syncing = Stopwatch.start();
        FeedMirror.SyncResult result;
        try (FeedMirror mirror = new FeedMirror(store, mirrorDirectory, config, FlattenerConfig::defaults,
                Clock.systemUTC())) {
            result = mirror.sync();
        }
        Stopwatch.Lap synced = syncing.lap();
        out.printf(Locale.ROOT, "%s: %s in %.1f s, %.1f s of CPU%n", what, result.describe(), synced.seconds(),
                synced.cpuSeconds());
        return synced.seconds();
    }

    /**
     * Samples the heap every 10 ms on a daemon thread, keeping the highest use, and the highest use right after a
     * collection (each heap pool's use after its last collection, summed).
     */
    private static final class HeapSampler {
        private final AtomicLong peak = new AtomicLong();
        private final AtomicLong peakLive = new AtomicLong();
        private final Thread thread;
        private volatile boolean stopped;

        private HeapSampler() {
            MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
            List<MemoryPoolMXBean> heapPools = ManagementFactory.getMemoryPoolMXBeans().stream()
                    .filter(pool -> pool.getType() == MemoryType.HEAP && pool.isCollectionUsageThresholdSupported())
                    .toList();
            thread = new Thread(() -> {
                while (!stopped) {
                    peak.accumulateAndGet(memory.getHeapMemoryUsage().getUsed(), Math::max);
                    long live = 0;
                    for (MemoryPoolMXBean pool : heapPools) {
                        live += pool.getCollectionUsage().getUsed();
                    }
                    peakLive.accumulateAndGet(live, Math::max);
                    try {
                        Thread.sleep(10);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "heap-sampler");
            thread.setDaemon(true);
        }

        static HeapSampler start() {
            HeapSampler sampler = new HeapSampler();
            sampler.thread.start();
            return sampler;
        }

        void stop() throws InterruptedException {
            stopped = true;
            thread.join();
        }

        long peak() {
            return peak.get();
        }

        long peakLive() {
            return peakLive.get();
        }
    }
}
