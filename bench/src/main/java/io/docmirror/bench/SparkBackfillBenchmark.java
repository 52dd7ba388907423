package io.docmirror.bench;

import io.docmirror.demo.DemoDataset;
import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.layout.MirrorProperties;
import io.docmirror.mirror.Backfill;
import io.docmirror.mirror.MirrorConfig;
import io.docmirror.spark.backfill.SparkBackfill;
import io.docmirror.spark.backfill.StoreAddress;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.StoreConfig;
import io.docmirror.store.server.StoreHttpServer;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Locale;
import java.util.Map;

/**
 * The Spark backfill ({@code spark-backfill}) of the demo's orders at {@code local[1]} and {@code local[2]}, against
 * the single-machine backfill of the same store and DuckDB flattening the same JSON into the same tables
 * ({@link FlattenedOrdersInDuckDb}), in one run. The store is served over HTTP on loopback, as the job reads it.
 * Usage: {@code SparkBackfillBenchmark [orders] [workDir] [partsPerRange]}; the JVM needs the {@code --add-opens}
 * flags Spark's launcher gives (BENCHMARKS.md).
 */
public final class SparkBackfillBenchmark {
    /** The targets of issue 44: local[2] within 1.5x the single-machine backfill, and 1.7x faster than local[1]. */
    private static final double SINGLE_MACHINE_TARGET = 1.5;
    private static final double SCALING_TARGET = 1.7;

    private SparkBackfillBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int orders = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        Path work = args.length > 1 ? Files.createDirectories(Path.of(args[1]))
                : Files.createTempDirectory("docmirror-spark-backfill-bench");
        int partsPerRange = args.length > 2 ? Integer.parseInt(args[2]) : 8;
        run(orders, work, partsPerRange, System.out);
    }

    static void run(int orders, Path work, int partsPerRange, PrintStream out) throws Exception {
        DemoDataset dataset = new DemoDataset(orders);
        Path jsonLines = OrdersJsonLines.write(dataset, work.resolve("orders.jsonl"));
        MirrorConfig config = MirrorConfig.defaults();
        FlattenerConfig flattener = FlattenerConfig.defaults(DemoDataset.CONTAINER);
        try (EmbeddedStore store = EmbeddedStore.open(work.resolve("store"),
                StoreConfig.defaults().withSyncWrites(false));
                StoreHttpServer server = StoreHttpServer.start(store,
                        StoreConfig.defaults().withHttp("127.0.0.1", 0))) {
            dataset.load(store, done -> { });
            out.printf(Locale.ROOT, "%,d orders in the store, served at %s; %.0f MB of JSON Lines%n", orders,
                    server.baseUri(), Files.size(jsonLines) / 1e6);

            System.gc();
            Stopwatch backfilling = Stopwatch.start();
            long documents = new Backfill(store, work.resolve("mirror-single"), config, flattener, Clock.systemUTC())
                    .run(DemoDataset.CONTAINER, Backfill.Listener.NONE).items();
            Stopwatch.Lap single = print(out, "single-machine backfill", documents, backfilling.lap());
            MirroredTables expected = MirroredTables.read(work.resolve("mirror-single"), DemoDataset.CONTAINER, out);
            check(expected, expected, orders, "the single-machine backfill");

            StoreAddress address = new StoreAddress(server.baseUri(), null);
            Stopwatch.Lap oneCore = sparkBackfill(1, address, work.resolve("mirror-spark-1"), config, flattener,
                    partsPerRange, expected, orders, out);
            Stopwatch.Lap twoCores = sparkBackfill(2, address, work.resolve("mirror-spark-2"), config, flattener,
                    partsPerRange, expected, orders, out);

            Stopwatch flattening = Stopwatch.start();
            Map<String, Long> duckDbRows = FlattenedOrdersInDuckDb.write(jsonLines,
                    Files.createDirectories(work.resolve("duckdb")));
            Stopwatch.Lap duckDb = print(out, "DuckDB read_json -> root, items, discounts and history Parquet",
                    orders, flattening.lap());
            FlattenedOrdersInDuckDb.print(duckDbRows, out);

            out.printf(Locale.ROOT, "ratio Spark local[2] / single-machine backfill: %.2f (target <= %.1f); CPU %.2f%n",
                    twoCores.seconds() / single.seconds(), SINGLE_MACHINE_TARGET,
                    twoCores.cpuSeconds() / single.cpuSeconds());
            out.printf(Locale.ROOT, "speed-up local[2] over local[1]: %.2f (target >= %.1f)%n",
                    oneCore.seconds() / twoCores.seconds(), SCALING_TARGET);
            out.printf(Locale.ROOT, "ratio Spark local[2] / DuckDB: %.2f; single-machine backfill / DuckDB: %.2f%n",
                    twoCores.seconds() / duckDb.seconds(), single.seconds() / duckDb.seconds());
            // local[1] is one task thread, not one core: its part writer encodes on a second thread, and the store
            // serves the reads in this process. Per core is therefore per second of CPU.
            double ratePerCore = orders / oneCore.cpuSeconds();
            double scaling = oneCore.seconds() / twoCores.seconds() / 2;
            out.printf(Locale.ROOT, "local[1]: %,.0f docs/s on %.2f cores busy on average, %,.0f docs a CPU second; "
                            + "a billion documents in an hour take %,.0f cores at that rate, %,.0f scaling as "
                            + "measured (%.0f%% of 2x from 1 to 2 task threads)%n", orders / oneCore.seconds(),
                    oneCore.cpuSeconds() / oneCore.seconds(), ratePerCore, Math.ceil(1e9 / 3600 / ratePerCore),
                    Math.ceil(1e9 / 3600 / (ratePerCore * Math.min(1, scaling))), 100 * scaling);
        }
    }

    /** One Spark backfill in its own Spark context with {@code cores} task threads; returns its times. */
    private static Stopwatch.Lap sparkBackfill(int cores, StoreAddress store, Path mirrorDirectory,
            MirrorConfig config, FlattenerConfig flattener, int partsPerRange, MirroredTables expected, int orders,
            PrintStream out) {
        String what = "Spark backfill local[" + cores + "]";
        SparkConf conf = new SparkConf().setMaster("local[" + cores + "]").setAppName("SparkBackfillBenchmark")
                .set("spark.ui.enabled", "false").set("spark.driver.host", "127.0.0.1")
                .set("spark.driver.bindAddress", "127.0.0.1");
        try (JavaSparkContext spark = new JavaSparkContext(conf)) {
            System.gc();
            Stopwatch backfilling = Stopwatch.start();
            SparkBackfill.Result result = new SparkBackfill(spark, mirrorDirectory, config, flattener,
                    Clock.systemUTC()).run(store, DemoDataset.CONTAINER, partsPerRange);
            Stopwatch.Lap lap = print(out, what, result.documents(), backfilling.lap());
            out.printf(Locale.ROOT, "  %d parts (%d feed ranges), %d schema rounds%n", result.parts(),
                    result.rangeLsns().size(), result.schemaRounds());
            check(MirroredTables.read(mirrorDirectory, DemoDataset.CONTAINER, out), expected, orders, what);
            return lap;
        }
    }

    private static Stopwatch.Lap print(PrintStream out, String what, long documents, Stopwatch.Lap lap) {
        out.printf(Locale.ROOT, "%s: %,d documents in %.1f s (%,.0f docs/s), %.1f s of CPU%n", what, documents,
                lap.seconds(), documents / lap.seconds(), lap.cpuSeconds());
        return lap;
    }

    /**
     * The mirror holds every order once, in its root table and its history, and the rows the reference holds in
     * every table (an empty table of dead letters, which the Spark backfill makes and the single machine's does not,
     * aside).
     */
    private static void check(MirroredTables tables, MirroredTables expected, int orders, String what) {
        if (tables.rowsOf(MirrorProperties.ROOT) != orders || tables.rowsOf(MirrorProperties.HISTORY) != orders
                || !tables.nonEmpty().equals(expected.nonEmpty())) {
            throw new IllegalStateException(what + " left tables " + tables.rows() + ", not " + orders
                    + " orders as in the single-machine backfill's " + expected.rows());
        }
    }
}
