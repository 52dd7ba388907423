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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * The query set ({@link OrderQuery#set}) on the mirror in the state users meet: the demo's orders loaded and mirrored,
 * then a steady load of updates to random orders plus new orders ({@link PacedOrderWriter}) while the mirror daemon
 * runs in this process as {@code docmirror mirror run} runs it (its default batching and compaction). Every round
 * interval (10 s; the first {@value #WARM_UP_ROUNDS} rounds are a warm-up, not counted) the SQL endpoint opens the newest commit and each query runs once on it and once on the clean
 * Parquet files ({@link CleanFileReference}); p50 and p95 over the rounds are reported for both, with the mirror's
 * state at each round (files, deletion vectors, superseded rows, compactions so far) and how far behind the store it
 * was.
 *
 * <p>The clean files are written from the mirror's state at two moments, not every round: writing them (through the
 * endpoint, every column of a million orders and their line items) takes longer than a round and would take the
 * daemon's share of the machine. So they hold the state at rest before the load, which the rounds' clean side
 * queries (the mirror gains the load's new orders meanwhile: the round lines show both row counts), and are written
 * anew from the state the load leaves. At both moments the query set is run on the same state on both sides, its
 * answers checked equal, and timed (medians of 5). Then, with the daemon stopped, the stress case of
 * {@link SqlQueryBenchmark}: 10% of the orders updated at once and mirrored in one sync. Usage:
 * {@code SteadyStateQueryBenchmark [orders] [seconds] [updates a second] [workDir] [mirror.option=value ...]}
 * (default 1,000,000, 120, 1,000), the options in place of the mirror's defaults for the whole run.
 */
public final class SteadyStateQueryBenchmark {
    private static final Duration ROUND_INTERVAL = Duration.ofSeconds(10);
    /**
     * Rounds under load before those counted: the daemon opens its tables (it reads their key columns) and the load
     * settles.
     */
    private static final int WARM_UP_ROUNDS = 3;
    private static final double STRESS_SHARE = 0.10;
    /** Runs of a trivial query whose median is a query's fixed cost on either side. */
    private static final int FIXED_COST_RUNS = 21;

    private SteadyStateQueryBenchmark() {
    }

    /** Latencies of one query over the rounds under load, in milliseconds. */
    public record QueryLatency(String query, double mirrorP50, double mirrorP95, double cleanP50, double cleanP95) {
        public double ratioP50() {
            return mirrorP50 / cleanP50;
        }

        public double ratioP95() {
            return mirrorP95 / cleanP95;
        }
    }

    /**
     * @param rounds the rounds counted
     * @param compactions compactions the daemon committed during the rounds counted
     * @param atRest medians on the state before the load
     * @param afterLoad medians on the state the load left
     * @param stress medians after the stress case
     */
    public record Result(List<QueryLatency> latencies, int rounds, long updates, long newOrders, long compactions,
            List<SqlQueryBenchmark.Timing> atRest, List<SqlQueryBenchmark.Timing> afterLoad,
            List<SqlQueryBenchmark.Timing> stress) {
    }

    public static void main(String[] args) throws Exception {
        int orders = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 120;
        int updatesPerSecond = args.length > 2 ? Integer.parseInt(args[2]) : 1000;
        Path work = args.length > 3 ? Files.createDirectories(Path.of(args[3]))
                : Files.createTempDirectory("docmirror-steady-state-bench");
        run(orders, Duration.ofSeconds(seconds), updatesPerSecond, ROUND_INTERVAL,
                MirrorOptionArguments.options(args, 4), work, System.out);
    }

    /** @param mirrorOptions {@code mirror.*} options in place of the defaults (none: the defaults users get) */
    public static Result run(int orders, Duration duration, int updatesPerSecond, Duration roundInterval,
            Map<String, String> mirrorOptions, Path work, PrintStream out) throws Exception {
        MirrorConfig config = MirrorConfig.fromProperties(mirrorOptions);
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
            MirroredOrders.mirror(store, data, config);
            out.printf(Locale.ROOT, "%,d orders loaded into the store in %.0f s, mirrored (mirror sync) in %.0f s%n",
                    orders, loadSeconds, (System.nanoTime() - startedAt) / 1e9);

            // The endpoint moves to a newer commit only when told, so that the clean files hold its rows exactly.
            SqlConfig pinned = SqlConfig.defaults().withRefreshInterval(Duration.ofDays(1));
            try (SqlEndpoint endpoint = SqlEndpoint.open(mirrorDirectory, pinned);
                    CleanFileReference clean = CleanFileReference.open(endpoint, work.resolve("clean"))) {
                out.printf(Locale.ROOT, "%na query's fixed cost (median of %d runs of SELECT 42): %.1f ms on the "
                                + "endpoint, %.1f ms on DuckDB%n", FIXED_COST_RUNS,
                        CleanFileReference.medianMillis(clean.mirror(), "SELECT 42", FIXED_COST_RUNS),
                        CleanFileReference.medianMillis(clean.reference(), "SELECT 42", FIXED_COST_RUNS));
                out.printf(Locale.ROOT, "%nat rest, before the load (clean files written from this state):%n");
                List<SqlQueryBenchmark.Timing> atRest = compareNow(endpoint, clean, queries, mirrorDirectory, out);
                long cleanRows = MirrorState.read(mirrorDirectory, DemoDataset.CONTAINER).liveRows(
                        DemoDataset.CONTAINER);

                out.printf(Locale.ROOT, "%nthe load: %,d updates a second to random orders (status and updatedAt "
                                + "patched) plus a new order every %d updates, for %d s, the daemon running with the "
                                + "default mirror.* configuration%s; each query once on each side every %d s, the "
                                + "first %d rounds not counted%n",
                        updatesPerSecond, PacedOrderWriter.UPDATES_PER_NEW_ORDER, duration.toSeconds(),
                        mirrorOptions.isEmpty() ? "" : " but " + new TreeMap<>(mirrorOptions),
                        roundInterval.toSeconds(), WARM_UP_ROUNDS);
                Samples samples = new Samples(queries);
                PacedOrderWriter.Result written;
                long compactions;
                try (FeedMirror mirror = new FeedMirror(store, mirrorDirectory, config,
                        FlattenerConfig::defaults, Clock.systemUTC());
                        Daemon daemon = Daemon.start(mirror);
                        PacedOrderWriter writer = PacedOrderWriter.start(store, dataset, updatesPerSecond, 42)) {
                    long loadStartedAt = System.nanoTime();
                    long rounds = duration.toNanos() / roundInterval.toNanos();
                    long compactionsBefore = 0;
                    for (long round = 1 - WARM_UP_ROUNDS; round <= rounds; round++) {
                        long due = loadStartedAt + (round + WARM_UP_ROUNDS - 1) * roundInterval.toNanos();
                        // On schedule: a round that ran long does not move the ones after it.
                        while (System.nanoTime() < due) {
                            LockSupport.parkNanos(due - System.nanoTime());
                        }
                        if (round == 1) {
                            compactionsBefore = compactions(mirror);
                        }
                        double at = (System.nanoTime() - loadStartedAt) / 1e9;
                        Round measured = Round.measure(endpoint, clean, queries, mirrorDirectory,
                                round < 1 ? new Samples(queries) : samples);
                        out.println((round < 1 ? "warm-up, " : "") + measured.describe(at, compactions(mirror),
                                cleanRows));
                    }
                    written = writer.stop();
                    compactions = compactions(mirror) - compactionsBefore;
                }
                out.printf(Locale.ROOT, "written: %,d updates (%,.0f a second) and %,d new orders (%,.0f a second); "
                                + "the writer fell behind its schedule by at most %.0f ms; %d compactions in the "
                                + "rounds counted%n",
                        written.updates(), written.updatesPerSecond(), written.newOrders(),
                        written.newOrdersPerSecond(), written.mostLateMillis(), compactions);
                List<QueryLatency> latencies = samples.print(out);

                out.printf(Locale.ROOT, "%nafter the load, the daemon stopped (clean files written anew from this "
                        + "state):%n");
                List<SqlQueryBenchmark.Timing> afterLoad = compareNow(endpoint, clean, queries, mirrorDirectory, out);

                int updated = MirroredOrders.update(store, dataset, STRESS_SHARE);
                MirroredOrders.mirror(store, data, config);
                out.printf(Locale.ROOT, "%nstress: %,d orders (%.0f%%) updated at once and mirrored in one mirror "
                        + "sync:%n", updated, 100 * STRESS_SHARE);
                List<SqlQueryBenchmark.Timing> stress = compareNow(endpoint, clean, queries, mirrorDirectory, out);
                return new Result(latencies, samples.rounds(), written.updates(), written.newOrders(), compactions,
                        atRest, afterLoad, stress);
            }
        }
    }

    /**
     * The query set on the mirror's newest commit and on clean files written from it, its answers checked equal
     * ({@link SqlQueryBenchmark#compare}), after a line on the mirror's state.
     */
    private static List<SqlQueryBenchmark.Timing> compareNow(SqlEndpoint endpoint, CleanFileReference clean,
            List<OrderQuery> queries, Path mirrorDirectory, PrintStream out) throws Exception {
        endpoint.refresh();
        MirrorState state = MirrorState.read(mirrorDirectory, DemoDataset.CONTAINER);
        out.printf(Locale.ROOT, "state at batch %d: %s%n", state.batch(), state.describe(DemoDataset.CONTAINER));
        return SqlQueryBenchmark.compare(clean, queries, Optional.empty(), out);
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
     * One round under load: the endpoint opens the newest commit, and every query runs once on it and once on the
     * clean files.
     *
     * @param openMillis how long the endpoint took to open the newest commit (what the first query after a commit
     *     waits for with the default {@code sql.refresh-interval-ms})
     * @param behindSeconds how old the newest change the queries see was when the round began: how far behind the
     *     store the mirror was
     * @param millis each query's time on the mirror and on the clean files, by query
     */
    private record Round(MirrorState state, long queriedBatch, double openMillis, double behindSeconds,
            Map<String, double[]> millis) {
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
            Map<String, double[]> millis = new LinkedHashMap<>();
            for (OrderQuery query : queries) {
                double onMirror = clean.mirrorMillis(query);
                double onClean = clean.cleanMillis(query);
                samples.add(query, onMirror, onClean);
                millis.put(query.name(), new double[] {onMirror, onClean});
            }
            samples.addRound();
            return new Round(state, batch, openMillis, behind, millis);
        }

        String describe(double at, long compactions, long cleanRows) {
            StringBuilder line = new StringBuilder(String.format(Locale.ROOT,
                    "%5.1f s: batch %d, its newest change %.1f s old, opened by the endpoint in %.0f ms; %d "
                            + "compactions so far; %,d orders (clean files %,d)%n  state at batch %d: %s%n"
                            + "  ms mirror/clean:", at, queriedBatch, behindSeconds, openMillis, compactions,
                    state.liveRows(DemoDataset.CONTAINER), cleanRows, state.batch(),
                    state.describe(DemoDataset.CONTAINER)));
            millis.forEach((query, pair) -> line.append(String.format(Locale.ROOT, " %.0f/%.0f", pair[0], pair[1])));
            return line.toString();
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

        void add(OrderQuery query, double mirrorMillis, double cleanMillis) {
            mirror.get(query.name()).add(mirrorMillis);
            clean.get(query.name()).add(cleanMillis);
        }

        void addRound() {
            rounds++;
        }

        int rounds() {
            return rounds;
        }

        List<QueryLatency> print(PrintStream out) {
            out.printf(Locale.ROOT, "%n%d rounds under load, one run a side each (the clean files at rest)%n",
                    rounds);
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
