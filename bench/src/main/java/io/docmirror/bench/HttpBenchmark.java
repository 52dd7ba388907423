package io.docmirror.bench;

import io.docmirror.demo.OrderGenerator;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.PartitionKey;
import io.docmirror.store.Precondition;
import io.docmirror.store.StoreClient;
import io.docmirror.store.StoreConfig;
import io.docmirror.store.http.HttpStoreClient;
import io.docmirror.store.http.StoreHttpServer;
import org.HdrHistogram.Histogram;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Supplier;

/**
 * Single-document upserts and point reads over HTTP with concurrent clients, against the same operations on the
 * same store in-process (the reference: what HTTP costs). Usage: {@code HttpBenchmark [clients] [seconds] [workDir]}.
 */
public final class HttpBenchmark {
    private static final String CONTAINER = "CustomersOrdersAndItems";

    private HttpBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int clients = args.length > 0 ? Integer.parseInt(args[0]) : 16;
        Duration duration = Duration.ofSeconds(args.length > 1 ? Long.parseLong(args[1]) : 15);
        Path work = args.length > 2 ? Path.of(args[2]) : Files.createTempDirectory("docmirror-http-bench");
        run(clients, duration, work, System.out);
    }

    public record Phase(String name, long operations, double perSecond, double p50Millis, double p99Millis) {
    }

    public static List<Phase> run(int clients, Duration duration, Path work, PrintStream out) throws Exception {
        OrderGenerator generator = new OrderGenerator(7, 10_000);
        List<Phase> phases = new ArrayList<>();
        try (EmbeddedStore store = EmbeddedStore.open(work.resolve("store"), StoreConfig.defaults())) {
            store.createContainer(ContainerProperties.of(CONTAINER, "/customerId").withAnalyticalTtl(-1));
            StoreHttpServer server = StoreHttpServer.start(store, StoreConfig.defaults().withHttp("127.0.0.1", 0));
            try {
                Supplier<StoreClient> http = () -> new HttpStoreClient(server.baseUri(), Optional.empty());
                Supplier<StoreClient> embedded = () -> store;
                int keys = 100_000;
                phases.add(measure("upsert, in-process (reference)", clients, duration.dividedBy(3), embedded,
                        (client, random) -> client.upsertItem(CONTAINER, generator.order(random.nextInt(keys)), Precondition.NONE)));
                phases.add(measure("upsert, HTTP", clients, duration, http,
                        (client, random) -> client.upsertItem(CONTAINER, generator.order(random.nextInt(keys)), Precondition.NONE)));
                // Reads of items the upserts wrote: every id below `keys` may exist, misses count as reads too.
                phases.add(measure("point read, in-process (reference)", clients, duration.dividedBy(3), embedded,
                        (client, random) -> read(client, generator, random.nextInt(keys))));
                phases.add(measure("point read, HTTP", clients, duration, http,
                        (client, random) -> read(client, generator, random.nextInt(keys))));
            }
            finally {
                server.close();
            }
        }
        ImportBenchmark.deleteTree(work.resolve("store"));
        out.printf(Locale.ROOT, "%d concurrent clients, documents of about 1 KB%n", clients);
        out.printf(Locale.ROOT, "%-38s %12s %10s %10s%n", "", "ops/s", "p50 ms", "p99 ms");
        for (Phase phase : phases) {
            out.printf(Locale.ROOT, "%-38s %,12.0f %10.3f %10.3f%n", phase.name(), phase.perSecond(), phase.p50Millis(),
                    phase.p99Millis());
        }
        return phases;
    }

    private static void read(StoreClient client, OrderGenerator generator, int index) {
        client.findItem(CONTAINER, PartitionKey.of(generator.customerId(index)), "order-" + index);
    }

    @FunctionalInterface
    interface Operation {
        void run(StoreClient client, SplittableRandom random) throws Exception;
    }

    private static Phase measure(String name, int clients, Duration duration, Supplier<StoreClient> clientFactory,
            Operation operation) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        long deadline = System.nanoTime() + duration.toNanos();
        List<Future<Histogram>> futures = new ArrayList<>();
        long start = System.nanoTime();
        for (int client = 0; client < clients; client++) {
            int seed = client;
            futures.add(pool.submit(() -> {
                Histogram histogram = new Histogram(60_000_000_000L, 3);
                SplittableRandom random = new SplittableRandom(seed);
                // Not closed here: the embedded store is shared and closed by the caller, an HTTP client holds nothing.
                StoreClient storeClient = clientFactory.get();
                while (System.nanoTime() < deadline) {
                    long begin = System.nanoTime();
                    operation.run(storeClient, random);
                    histogram.recordValue(System.nanoTime() - begin);
                }
                return histogram;
            }));
        }
        Histogram total = new Histogram(60_000_000_000L, 3);
        for (Future<Histogram> future : futures) {
            total.add(future.get());
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        pool.shutdown();
        return new Phase(name, total.getTotalCount(), total.getTotalCount() / seconds,
                total.getValueAtPercentile(50) / 1e6, total.getValueAtPercentile(99) / 1e6);
    }
}
