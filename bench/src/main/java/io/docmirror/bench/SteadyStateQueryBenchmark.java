package io.docmirror.bench;

import io.docmirror.demo.DemoDataset;
import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.layout.MirrorLayout;
import io.docmirror.mirror.FeedMirror;
import io.docmirror.mirror.MirrorActivity;
import io.docmirror.mirror.MirrorConfig;
import io.docmirror.sql.SqlConfig;
import io.docmirror.sql.SqlEndpoint;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.StoreConfig;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * The query set ({@link OrderQuery#set}) on the mirror in the state users meet: the demo's orders loaded and mirrored,
 * then a steady load of updates to random orders plus new orders ({@link PacedOrderWriter}) while the mirror daemon
 * runs in this process as {@code docmirror mirror run} runs it (its default batching and compaction). Every round
 * interval (10 s) the SQL endpoint opens the newest commit, the clean Parquet files are written anew from that same
 * commit ({@link CleanFileReference}), both sides must give the same answers, and each query is timed
 * {@value #RUNS_PER_ROUND} times on each, alternately. It reports p50 and p95 of every query on both, the mirror's
 * state at each round (files, deletion vectors, superseded rows, compactions so far) and how far behind the store
 * it was; then, with the daemon stopped, the stress case of {@link SqlQueryBenchmark}: 10% of the orders updated at
 * once and mirrored in one sync. Usage:
 * {@code SteadyStateQueryBenchmark [orders] [seconds] [updates a second] [workDir]} (default 1,000,000, 120, 1,000).
 */
public final class SteadyStateQueryBenchmark {
    static final int RUNS_PER_ROUND = 3;
    private static final Duration ROUND_INTERVAL = Duration.ofSeconds(10);
    private static final double STRESS_SHARE = 0.10;

    private SteadyStateQueryBenchmark() {
    }

    /** Latencies of one query over every round, in milliseconds. */
    public record QueryLatency(String query, double mirrorP50, double mirrorP95, double cleanP50, double cleanP95) {
        public double ratioP50() {
            return mirrorP50 / cleanP50;
        }

        public double ratioP95() {
            return mirrorP95 / cleanP95;
        }
    }

    /**
     * @param rounds the rounds measured under load (the one at rest before the load is not counted)
     * @param compactions compactions the daemon committed during the load
     * @param stress the stress case's medians
     */
    public record Result(List<QueryLatency> latencies, int rounds, long updates, long newOrders, long compactions,
            List<SqlQueryBenchmark.Timing> stress) {
    }

    public static void main(String[] args) throws Exception {
        int orders = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 120;
        int updatesPerSecond = args.length > 2 ? Integer.parseInt(args[2]) : 1000;
        Path work = args.length > 3 ? Files.createDirectories(Path.of(args[3]))
                : Files.createTempDirectory("docmirror-steady-state-bench");
        run(orders, Duration.ofSeconds(seconds), updatesPerSecond, ROUND_INTERVAL, work, System.out);
    }

    public static Result run(int orders, Duration duration, int updatesPerSecond, Duration roundInterval, Path work,
            PrintStream out) throws Exception {
        Path data = work.resolve("steady-state-data");
        Path mirrorDirectory = MirrorLayout.mirrorDirectory(data);
        DemoDataset dataset = new DemoDataset(orders);
        List<OrderQuery> queries = OrderQuery.set("order-" + (orders * 7L / 9));
        try (EmbeddedStore store = EmbeddedStore.open(data.resolve("store"),
                StoreConfig.defaults().withSyncWrites(false))) {
            long startedAt = System.nanoTime();
            dataset.load(store, done -> { });
            double loadSeconds = (System.nanoTime() - startedAt) / 1e9;
            startedAt = System.nanoTime();
            MirroredOrders.mirror(store, data);
            out.printf(Locale.ROOT, "%,d orders loaded into the store in %.0f s, mirrored (mirror sync) in %.0f s%n",
                    orders, loadSeconds, (System.nanoTime() - startedAt) / 1e9);
            out.printf(Locale.ROOT, "load: %,d updates a second to random orders (status and updatedAt patched) "
                            + "plus a new order every %d updates, for %d s; the daemon with the default "
                            + "mirror.* configuration; the query set every %d s, %d runs a side%n", updatesPerSecond,
                    PacedOrderWriter.UPDATES_PER_NEW_ORDER, duration.toSeconds(), roundInterval.toSeconds(),
                    RUNS_PER_ROUND);

            // The endpoint moves to a newer commit only when told: each round's clean files hold its commit's rows.
            SqlConfig pinned = SqlConfig.defaults().withRefreshInterval(Duration.ofDays(1));
            Samples samples = new Samples(queries);
            PacedOrderWriter.Result written;
            long compactions;
            try (SqlEndpoint endpoint = SqlEndpoint.open(mirrorDirectory, pinned);
                    CleanFileReference clean = CleanFileReference.open(endpoint, work.resolve("clean"))) {
                try (FeedMirror mirror = new FeedMirror(store, mirrorDirectory, MirrorConfig.defaults(),
                        FlattenerConfig::defaults, Clock.systemUTC());
                        Daemon daemon = Daemon.start(mirror)) {
                    Round atRest = Round.measure(endpoint, clean, queries, mirrorDirectory, new Samples(queries));
                    out.println(atRest.describe("at rest (not counted)", 0, mirror));
                    long compactionsBefore = compactions(mirror);
                    long loadStartedAt = System.nanoTime();
                    try (PacedOrderWriter writer = PacedOrderWriter.start(store, dataset, updatesPerSecond, 42)) {
                        long rounds = duration.toNanos() / roundInterval.toNanos();
                        for (long round = 1; round <= rounds; round++) {
                            long due = loadStartedAt + round * roundInterval.toNanos();
                            // On schedule: a round that ran long does not move the ones after it.
                            while (System.nanoTime() < due) {
                                LockSupport.parkNanos(due - System.nanoTime());
                            }
                            String when = String.format(Locale.ROOT, "%5.1f s",
                                    (System.nanoTime() - loadStartedAt) / 1e9);
                            Round measured = Round.measure(endpoint, clean, queries, mirrorDirectory, samples);
                            out.println(measured.describe(when, compactionsBefore, mirror));
                        }
                        written = writer.stop();
                    }
                    compactions = compactions(mirror) - compactionsBefore;
                }
                out.printf(Locale.ROOT, "written: %,d updates (%,.0f a second) and %,d new orders (%,.0f a second); "
                                + "the writer fell behind its schedule by at most %.0f ms; %d compactions%n",
                        written.updates(), written.updatesPerSecond(), written.newOrders(),
                        written.newOrdersPerSecond(), written.mostLateMillis(), compactions);
                List<QueryLatency> latencies = samples.print(out);

                int updated = MirroredOrders.update(store, dataset, STRESS_SHARE);
                MirroredOrders.mirror(store, data);
                endpoint.refresh();
                out.printf(Locale.ROOT, "%nstress: %,d orders (%.0f%%) updated at once and mirrored in one mirror "
                        + "sync, the daemon stopped%n", updated, 100 * STRESS_SHARE);
                out.println(MirrorState.read(mirrorDirectory, DemoDataset.CONTAINER).describe(DemoDataset.CONTAINER));
                List<SqlQueryBenchmark.Timing> stress = SqlQueryBenchmark.compare(clean, queries, Optional.empty(),
                        out);
                return new Result(latencies, samples.rounds(), written.updates(), written.newOrders(), compactions,
                        stress);
            }
        }
    }

    private static long compactions(FeedMirror mirror) {
        return mirror.activity().stream().mapToLong(MirrorActivity::compactions).sum();
    }

    /**
     * The daemon's loop on a thread of its own, as {@code mirror run} runs it, until closed; a failure of the loop is
     * thrown by {@link #close}.
     */
    private record Daemon(FeedMirror mirror, Thread thread, AtomicReference<Throwable> failure)
            implements AutoCloseable {
        static Daemon start(FeedMirror mirror) {
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread thread = new Thread(() -> {
                try {
                    mirror.run();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } catch (RuntimeException | Error e) {
                    failure.set(e);
                }
            }, "mirror-daemon");
            thread.start();
            return new Daemon(mirror, thread, failure);
        }

        @Override
        public void close() throws InterruptedException {
            mirror.stop();
            thread.join();
            if (failure.get() != null) {
                throw new IllegalStateException("The mirror daemon failed", failure.get());
            }
        }
    }

    /**
     * One round: the endpoint opens the newest commit, the clean files are written from it, every query is checked
     * to answer alike on both and timed on both.
     *
     * @param openMillis how long the endpoint took to open the newest commit (what the first query after a commit
     *     waits for with the default {@code sql.refresh-interval-ms})
     * @param behindSeconds how old the newest change the queries see was when the round began (under load: how far
     *     behind the store the mirror was)
     */
    private record Round(MirrorState state, long queriedBatch, double openMillis, double behindSeconds,
            double cleanCopySeconds, Map<String, double[]> medians) {
        static Round measure(SqlEndpoint endpoint, CleanFileReference clean, List<OrderQuery> queries,
                Path mirrorDirectory, Samples samples) throws Exception {
            long startedAt = System.nanoTime();
            endpoint.refresh();
            double openMillis = (System.nanoTime() - startedAt) / 1e6;
            MirrorState state = MirrorState.read(mirrorDirectory, DemoDataset.CONTAINER);
            long batch;
            double behind;
            try (ResultSet freshness = clean.mirror().executeQuery("SELECT batch, epoch(current_timestamp) - "
                    + "epoch(last_change_at) FROM docmirror_freshness")) {
                freshness.next();
                batch = freshness.getLong(1);
                behind = freshness.getDouble(2);
            }
            startedAt = System.nanoTime();
            clean.rewrite();
            double copySeconds = (System.nanoTime() - startedAt) / 1e9;
            Map<String, double[]> medians = new LinkedHashMap<>();
            for (OrderQuery query : queries) {
                clean.checkSameAnswer(query);
                double[] mirrorMillis = new double[RUNS_PER_ROUND];
                double[] cleanMillis = new double[RUNS_PER_ROUND];
                for (int run = 0; run < RUNS_PER_ROUND; run++) {
                    mirrorMillis[run] = clean.mirrorMillis(query);
                    cleanMillis[run] = clean.cleanMillis(query);
                }
                samples.add(query, mirrorMillis, cleanMillis);
                medians.put(query.name(), new double[] {median(mirrorMillis), median(cleanMillis)});
            }
            samples.addRound();
            return new Round(state, batch, openMillis, behind, copySeconds, medians);
        }

        String describe(String when, long compactionsBefore, FeedMirror mirror) {
            StringBuilder line = new StringBuilder(String.format(Locale.ROOT,
                    "%s: batch %d (its newest change %.1f s old; the endpoint opened it in %.0f ms; clean files "
                            + "written in %.1f s), %d compactions so far%n  state at batch %d: %s%n"
                            + "  median ms mirror/clean:",
                    when, queriedBatch, behindSeconds, openMillis, cleanCopySeconds,
                    compactions(mirror) - compactionsBefore, state.batch(), state.describe(DemoDataset.CONTAINER)));
            medians.forEach((query, pair) -> line.append(String.format(Locale.ROOT, " %.0f/%.0f", pair[0], pair[1])));
            return line.toString();
        }

        private static double median(double[] millis) {
            double[] sorted = millis.clone();
            Arrays.sort(sorted);
            return sorted.length % 2 == 1 ? sorted[sorted.length / 2]
                    : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
        }
    }

    /** Every timed run of every query over the rounds under load. */
    private static final class Samples {
        private final List<OrderQuery> queries;
        private final Map<String, List<Double>> mirror = new LinkedHashMap<>();
        private final Map<String, List<Double>> clean = new LinkedHashMap<>();
        private int rounds;

        Samples(List<OrderQuery> queries) {
            this.queries = queries;
            queries.forEach(query -> {
                mirror.put(query.name(), new ArrayList<>());
                clean.put(query.name(), new ArrayList<>());
            });
        }

        void add(OrderQuery query, double[] mirrorMillis, double[] cleanMillis) {
            Arrays.stream(mirrorMillis).forEach(mirror.get(query.name())::add);
            Arrays.stream(cleanMillis).forEach(clean.get(query.name())::add);
        }

        void addRound() {
            rounds++;
        }

        int rounds() {
            return rounds;
        }

        List<QueryLatency> print(PrintStream out) {
            out.printf(Locale.ROOT, "%n%d rounds under load, %d runs a side each%n", rounds, RUNS_PER_ROUND);
            out.printf(Locale.ROOT, "%-36s %9s %9s %9s %9s %8s %8s%n", "query (ms)", "mirror", "p95", "clean",
                    "p95", "ratio", "ratio");
            out.printf(Locale.ROOT, "%-36s %9s %9s %9s %9s %8s %8s%n", "", "p50", "", "p50", "", "p50", "p95");
            List<QueryLatency> latencies = new ArrayList<>();
            for (OrderQuery query : queries) {
                double[] onMirror = sorted(mirror.get(query.name()));
                double[] onClean = sorted(clean.get(query.name()));
                QueryLatency latency = new QueryLatency(query.name(), percentile(onMirror, 0.50),
                        percentile(onMirror, 0.95), percentile(onClean, 0.50), percentile(onClean, 0.95));
                latencies.add(latency);
                out.printf(Locale.ROOT, "%-36s %9.1f %9.1f %9.1f %9.1f %8.2f %8.2f%n", latency.query(),
                        latency.mirrorP50(), latency.mirrorP95(), latency.cleanP50(), latency.cleanP95(),
                        latency.ratioP50(), latency.ratioP95());
            }
            return latencies;
        }

        private static double[] sorted(List<Double> millis) {
            return millis.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        }

        /** The nearest-rank percentile. */
        private static double percentile(double[] sorted, double quantile) {
            return sorted[Math.max(0, (int) Math.ceil(quantile * sorted.length) - 1)];
        }
    }
}
