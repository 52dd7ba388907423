package io.docmirror.cli;

import io.docmirror.demo.DemoDataset;
import io.docmirror.demo.OrderStream;
import io.docmirror.feed.derive.Derivation;
import io.docmirror.feed.derive.DerivationRunner;
import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.metrics.DerivationMetrics;
import io.docmirror.metrics.HttpRequestMetrics;
import io.docmirror.metrics.MetricsConfig;
import io.docmirror.metrics.MirrorMetrics;
import io.docmirror.metrics.SqlMetrics;
import io.docmirror.metrics.StoreMetrics;
import io.docmirror.mirror.FeedMirror;
import io.docmirror.mirror.MirrorConfig;
import io.docmirror.sql.SqlConfig;
import io.docmirror.sql.SqlEndpoint;
import io.docmirror.sql.flight.FlightConfig;
import io.docmirror.sql.flight.FlightSqlServer;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.StoreConfig;
import io.docmirror.store.server.RequestObserver;
import io.docmirror.store.server.StoreHttpServer;
import io.prometheus.metrics.model.registry.MultiCollector;
import me.tongfei.progressbar.ProgressBar;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

@Command(name = "run", mixinStandardHelpOptions = true,
        description = {"Run docmirror in one process until Ctrl-C: the store's HTTP API, the mirror daemon and the "
                + "SQL endpoint (in-process and Arrow Flight SQL) over one data directory.",
                "With --demo it first loads a year of generated online orders into container "
                        + DemoDataset.CONTAINER + " (resumable; skipped when already there), mirrors them, prints "
                        + "example queries with their results and how to connect, and keeps writing a light stream "
                        + "of new orders so that the mirror's freshness shows."})
final class RunCommand implements Callable<Integer> {
    @Option(names = "--data", defaultValue = "demo-data", paramLabel = "DIR",
            description = "The data directory (default: ${DEFAULT-VALUE}).")
    Path data;

    @Mixin
    ConfigFileOption config;

    @Option(names = "--port", paramLabel = "N",
            description = "The store's HTTP port (default: store.http.port, 8081; 0 picks one).")
    Integer port;

    @Option(names = "--sql-port", paramLabel = "N",
            description = "The Arrow Flight SQL port (default: flight.port, 32010; 0 picks one).")
    Integer sqlPort;

    @Mixin
    MetricsOptions metrics;

    @Option(names = "--demo", description = "Load the demo dataset, show example queries, keep writing orders.")
    boolean demo;

    @Option(names = "--orders", defaultValue = "100000", paramLabel = "N",
            description = "Orders in the demo dataset (default: ${DEFAULT-VALUE}).")
    int orders;

    @Option(names = "--orders-per-second", defaultValue = "10", paramLabel = "N",
            description = "The demo's live stream of new orders (default: ${DEFAULT-VALUE}; 0 writes none).")
    int ordersPerSecond;

    @Option(names = "--exit-after", paramLabel = "SECONDS", hidden = true,
            description = "Stop by itself this long after it starts serving (for tests of the command).")
    Optional<Integer> exitAfterSeconds = Optional.empty();

    /** The example queries the demo prints, each with a line that says what it shows. */
    private static final Map<String, String> EXAMPLES = examples();

    private final PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);

    @Override
    public Integer call() throws Exception {
        DataDirOptions dataDir = DataDirOptions.of(data, config);
        // Configuration errors come before anything is opened or created.
        StoreConfig storeConfig = dataDir.storeConfig();
        storeConfig = storeConfig.withHttp(storeConfig.httpBind(), port != null ? port : storeConfig.httpPort());
        MirrorConfig mirrorConfig = dataDir.mirrorConfig();
        Function<String, FlattenerConfig> flattenerConfigs = dataDir.flattenerConfigs();
        SqlConfig sqlConfig = dataDir.sqlConfig();
        FlightConfig flightConfig = dataDir.flightConfig();
        flightConfig = flightConfig.withListener(flightConfig.bind(), sqlPort != null ? sqlPort : flightConfig.port());
        List<Derivation> derivations = dataDir.derivations();
        MetricsConfig metricsConfig = metrics.config(dataDir);
        DemoDataset dataset = new DemoDataset(orders);

        CountDownLatch stopRequested = new CountDownLatch(1);
        CountDownLatch finished = new CountDownLatch(1);
        Thread shutdownHook = new Thread(() -> {
            stopRequested.countDown();
            awaitQuietly(finished);
        }, "docmirror-shutdown");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
        // Everything started is closed in reverse order, whatever happens.
        Deque<AutoCloseable> started = new ArrayDeque<>();
        AtomicReference<Throwable> daemonFailure = new AtomicReference<>();
        try {
            EmbeddedStore store = EmbeddedStore.open(dataDir.storeDirectory(), storeConfig);
            started.push(store);
            if (demo) {
                loadDemoData(store, dataset);
            }
            // The store's own metrics, as store serve --metrics-port has them: requests, latency, group commits, the
            // change log (the JVM's come with every metrics endpoint).
            HttpRequestMetrics requests = new HttpRequestMetrics();
            List<MultiCollector> collectors = new ArrayList<>(List.of(new StoreMetrics(store), requests));
            if (!derivations.isEmpty()) {
                DerivationRunner runner = startDerivations(store, derivations);
                started.push(runner);
                collectors.add(new DerivationMetrics(runner));
            }
            FeedMirror mirror = new FeedMirror(store, dataDir.mirrorDirectory(), mirrorConfig, flattenerConfigs,
                    Clock.systemUTC());
            started.push(mirror);
            collectors.add(new MirrorMetrics(store, dataDir.catalogSettings(), mirror, Clock.systemUTC()));
            long startedAt = System.nanoTime();
            FeedMirror.SyncResult caughtUp = mirror.sync();
            out.printf(Locale.ROOT, "Mirrored %s in %.1f s to %s%n", caughtUp.describe(),
                    (System.nanoTime() - startedAt) / 1e9, dataDir.mirrorDirectory());

            Thread mirrorThread = new Thread(() -> {
                try {
                    mirror.run();
                } catch (Throwable e) {
                    daemonFailure.set(e);
                    stopRequested.countDown();
                }
            }, "docmirror-mirror");
            mirrorThread.start();
            started.push(() -> {
                mirror.stop();
                mirrorThread.join();
            });

            StoreHttpServer http = StoreHttpServer.start(store, storeConfig,
                    metricsConfig.enabled() ? requests : RequestObserver.NONE);
            started.push(http);
            SqlEndpoint endpoint = SqlEndpoint.open(dataDir.mirrorDirectory(), dataDir.catalogOptions(), sqlConfig);
            started.push(endpoint);
            SqlMetrics sqlMetrics = new SqlMetrics();
            collectors.add(sqlMetrics);
            FlightSqlServer flight = FlightSqlServer.start(endpoint, flightConfig, sqlMetrics);
            started.push(flight);

            out.println();
            out.println("Store HTTP API: " + http.baseUri() + "/containers");
            out.println("SQL in-process: jdbc:docmirror:" + data.toAbsolutePath()
                    + "   (or: ./docmirror sql --data " + data + " \"SELECT ...\")");
            MetricsOptions.start(metricsConfig, collectors, out).ifPresent(started::push);
            FlightConnectionHelp.print(out, flight);
            if (demo) {
                showExamples(endpoint);
            }
            // Counted from here, so that a slow start (loading, the first mirror) never eats the time a test gives.
            exitAfterSeconds.ifPresent(seconds -> stopAfter(seconds, stopRequested));
            if (demo && ordersPerSecond > 0) {
                OrderStream stream = new OrderStream(store, dataset, Clock.systemUTC());
                stream.start(Duration.ofNanos(1_000_000_000L / ordersPerSecond));
                started.push(stream);
                out.printf(Locale.ROOT, "%nWriting %d new orders a second; every 10 s a line shows the mirror "
                        + "keeping up. Ctrl-C stops.%n", ordersPerSecond);
                reportFreshness(endpoint, stream, stopRequested);
            }
            else {
                out.println();
                out.println("Mirroring until Ctrl-C.");
            }
            stopRequested.await();
        } finally {
            try {
                closeAll(started);
            } finally {
                // Whatever closing threw: a shutdown hook waits for this, and would hold the JVM forever.
                finished.countDown();
                removeHook(shutdownHook);
            }
        }
        if (daemonFailure.get() != null) {
            throw new IllegalStateException("The mirror daemon stopped: " + daemonFailure.get(), daemonFailure.get());
        }
        return ExitCodes.OK;
    }

    private void loadDemoData(EmbeddedStore store, DemoDataset dataset) {
        long startedAt = System.nanoTime();
        long loaded;
        try (ProgressBar bar = ConsoleProgress.bar("Loading demo orders", dataset.orders()).build()) {
            loaded = dataset.load(store, bar::stepTo);
        }
        if (loaded == 0) {
            out.printf(Locale.ROOT, "Container %s already holds the %,d demo orders%n", DemoDataset.CONTAINER,
                    dataset.orders());
        }
        else {
            out.printf(Locale.ROOT, "Loaded %,d generated orders into container %s in %.1f s%n", loaded,
                    DemoDataset.CONTAINER, (System.nanoTime() - startedAt) / 1e9);
        }
    }

    /** Brings the derived containers up to date (so the first mirror sync has them), then keeps them so. */
    private DerivationRunner startDerivations(EmbeddedStore store, List<Derivation> derivations) throws Exception {
        DerivationRunner runner = DerivationRunner.withDefaults(store, derivations);
        try {
            long startedAt = System.nanoTime();
            long changes = runner.catchUp();
            out.printf(Locale.ROOT, "Derived %,d source changes in %.1f s%n", changes,
                    (System.nanoTime() - startedAt) / 1e9);
            DeriveCommand.printStatus(runner.status());
            runner.start();
            return runner;
        } catch (Exception e) {
            runner.close();
            throw e;
        }
    }

    private void showExamples(SqlEndpoint endpoint) throws Exception {
        try (Connection connection = endpoint.connect(); Statement statement = connection.createStatement()) {
            for (Map.Entry<String, String> example : EXAMPLES.entrySet()) {
                out.println();
                out.println("-- " + example.getKey());
                out.println(example.getValue() + ";");
                ResultPrinter.print(statement.executeQuery(example.getValue()), ResultPrinter.Format.TABLE, out);
            }
        }
    }

    /** Prints a line every 10 s, and a last one when asked to stop, until asked to stop. */
    private void reportFreshness(SqlEndpoint endpoint, OrderStream stream, CountDownLatch stopRequested)
            throws Exception {
        boolean stopping;
        do {
            stopping = stopRequested.await(10, TimeUnit.SECONDS);
            try (Connection connection = endpoint.connect(); Statement statement = connection.createStatement();
                    ResultSet result = statement.executeQuery("SELECT (SELECT count(*) FROM "
                            + DemoDataset.CONTAINER + "), batch, lag_seconds FROM docmirror_freshness "
                            + "WHERE container = '" + DemoDataset.CONTAINER + "'")) {
                result.next();
                out.printf(Locale.ROOT, "stream: %,d orders written (%d failed); mirror: %,d orders, batch %d, "
                                + "%.3f s behind the store at its last commit%n", stream.written(), stream.failures(),
                        result.getLong(1), result.getLong(2), result.getDouble(3));
            }
        } while (!stopping);
    }

    private static void closeAll(Deque<AutoCloseable> started) throws Exception {
        Exception failure = null;
        while (!started.isEmpty()) {
            try {
                started.pop().close();
            } catch (Exception e) {
                if (failure == null) {
                    failure = e;
                }
                else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    private static void stopAfter(int seconds, CountDownLatch stopRequested) {
        Thread timer = new Thread(() -> {
            try {
                Thread.sleep(TimeUnit.SECONDS.toMillis(seconds));
                stopRequested.countDown();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "docmirror-exit-after");
        timer.setDaemon(true);
        timer.start();
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void removeHook(Thread hook) {
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // The JVM is already shutting down (Ctrl-C): the hook is running and waits for us.
        }
    }

    private static Map<String, String> examples() {
        String orders = DemoDataset.CONTAINER;
        String items = orders + "__items";
        Map<String, String> examples = new java.util.LinkedHashMap<>();
        examples.put("Revenue per month and billing state (a nested field, flattened into a column)",
                "SELECT strftime(orderDate::TIMESTAMP, '%Y-%m') AS month, customer__billingAddress__state AS state, "
                        + "count(*) AS orders, round(sum(total), 2) AS revenue FROM " + orders + " GROUP BY ALL "
                        + "ORDER BY month, revenue DESC LIMIT 6");
        examples.put("Best-selling products (a child table: one row per line item)",
                "SELECT name AS product, sum(quantity) AS units, round(sum(quantity * unitPrice), 2) AS revenue FROM " + items
                        + " GROUP BY ALL ORDER BY revenue DESC LIMIT 5");
        examples.put("Orders joined to their line items, by shipping method",
                "SELECT o.shippingMethod, count(DISTINCT o.id) AS orders, count(*) AS line_items, "
                        + "round(avg(i.quantity), 2) AS avg_quantity FROM " + orders + " o JOIN " + items + " i "
                        + "ON i._id = o.id GROUP BY ALL ORDER BY orders DESC");
        examples.put("How the mirror flattened the documents (the catalog)",
                "SELECT table_name, column_name, type, json_path FROM docmirror_columns "
                        + "WHERE json_path LIKE '$.customer.billingAddress%' ORDER BY ordinal");
        examples.put("Freshness: how far the mirror was behind the store at its last commit",
                "SELECT container, batch, committed_at, lag_seconds FROM docmirror_freshness");
        return examples;
    }
}
