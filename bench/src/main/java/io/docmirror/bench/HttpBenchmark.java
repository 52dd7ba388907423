package io.docmirror.bench;

import io.docmirror.demo.OrderGenerator;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.GroupCommitStatistics;
import io.docmirror.store.PartitionKey;
import io.docmirror.store.Precondition;
import io.docmirror.store.StoreClient;
import io.docmirror.store.StoreConfig;
import io.docmirror.store.http.HttpStoreClient;
import io.docmirror.store.server.StoreHttpServer;
import org.HdrHistogram.Histogram;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.WriteOptions;

import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Supplier;

/**
 * Single-document upserts (fsync on) and point reads with concurrent clients over HTTP, each next to its
 * references measured in the same run: the same operations in-process, the same HTTP server answering a fixed 1 KB
 * body through the same pipeline and threads (the HTTP floor: what a point read over HTTP could reach), and raw
 * RocksDB synced puts of the same documents from as many concurrent writers (what an upsert could reach). Each
 * figure is measured after a warm-up of a fifth of its time.
 * Usage: {@code HttpBenchmark [clients] [seconds] [workDir]}.
 */
public final class HttpBenchmark {
    private static final String CONTAINER = "CustomersOrdersAndItems";
    /** Orders the clients write and read: reads find most of them once the upserts ran. */
    private static final int KEYS = 100_000;

    private HttpBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int clients = args.length > 0 ? Integer.parseInt(args[0]) : 16;
        Duration duration = Duration.ofSeconds(args.length > 1 ? Long.parseLong(args[1]) : 5);
        Path work = args.length > 2 ? Path.of(args[2]) : Files.createTempDirectory("docmirror-http-bench");
        run(clients, duration, work, System.out);
    }

    public record Phase(String name, long operations, double perSecond, double p50Millis, double p99Millis) {
    }

    public static List<Phase> run(int clients, Duration duration, Path work, PrintStream out) throws Exception {
        OrderGenerator generator = new OrderGenerator(7, 10_000);
        List<Phase> phases = new ArrayList<>();
        phases.add(rawSyncedPuts(clients, duration, work.resolve("raw"), generator));
        List<String> groupSizes = new ArrayList<>();
        try (EmbeddedStore store = EmbeddedStore.open(work.resolve("store"), StoreConfig.defaults())) {
            store.createContainer(ContainerProperties.of(CONTAINER, "/customerId").withAnalyticalTtl(-1));
            byte[] fixedBody = fixedBody();
            StoreHttpServer server = StoreHttpServer.start(store, StoreConfig.defaults().withHttp("127.0.0.1", 0),
                    Map.of("fixed", (container, query) -> fixedBody));
            try {
                Supplier<StoreClient> http = () -> new HttpStoreClient(server.baseUri(), Optional.empty());
                Supplier<StoreClient> embedded = () -> store;
                Operation upsert = (client, random) -> client.upsertItem(CONTAINER,
                        generator.order(random.nextInt(KEYS)), Precondition.NONE);
                // One writer waits for each fsync alone: what group commit lets the other writers share.
                phases.add(measure("upsert, 1 client, in-process", 1, duration, embedded, upsert));
                GroupCommitStatistics before = store.groupCommitStatistics();
                phases.add(measure("upsert, in-process", clients, duration, embedded, upsert));
                GroupCommitStatistics between = store.groupCommitStatistics();
                phases.add(measure("upsert, HTTP", clients, duration, http, upsert));
                GroupCommitStatistics after = store.groupCommitStatistics();
                groupSizes.add(averageGroup("upsert, in-process", before, between));
                groupSizes.add(averageGroup("upsert, HTTP", between, after));

                phases.add(floor(clients, duration, server.baseUri(), fixedBody.length));
                // Reads of items the upserts wrote: every id below KEYS may exist, misses count as reads too.
                Operation read = (client, random) -> read(client, generator, random.nextInt(KEYS));
                phases.add(measure("point read, in-process", clients, duration, embedded, read));
                phases.add(measure("point read, HTTP", clients, duration, http, read));
            }
            finally {
                server.close();
            }
        }
        ImportBenchmark.deleteTree(work.resolve("store"));
        print(clients, phases, groupSizes, out);
        return phases;
    }

    private static void print(int clients, List<Phase> phases, List<String> groupSizes, PrintStream out) {
        out.printf(Locale.ROOT, "%d concurrent clients, documents of about 1 KB, fsync on%n", clients);
        out.printf(Locale.ROOT, "%-44s %12s %10s %10s%n", "", "ops/s", "p50 ms", "p99 ms");
        for (Phase phase : phases) {
            out.printf(Locale.ROOT, "%-44s %,12.0f %10.3f %10.3f%n", phase.name(), phase.perSecond(),
                    phase.p50Millis(), phase.p99Millis());
        }
        groupSizes.forEach(out::println);
        out.printf(Locale.ROOT, "upsert HTTP / raw synced puts: %.2f (target >= 0.5); upsert in-process / raw: %.2f; "
                        + "upsert HTTP / HTTP floor: %.2f%n",
                ratio(phases, "upsert, HTTP", "raw RocksDB synced puts"),
                ratio(phases, "upsert, in-process", "raw RocksDB synced puts"),
                ratio(phases, "upsert, HTTP", "HTTP floor"));
        out.printf(Locale.ROOT, "upsert in-process, %d clients / 1 client: %.2f%n", clients,
                ratio(phases, "upsert, in-process", "upsert, 1 client, in-process"));
        out.printf(Locale.ROOT, "point read HTTP / HTTP floor: %.2f (target >= 0.5), p99 %.3f ms (target < 5 ms)%n",
                ratio(phases, "point read, HTTP", "HTTP floor"), find(phases, "point read, HTTP").p99Millis());
    }

    private static double ratio(List<Phase> phases, String measured, String reference) {
        return find(phases, measured).perSecond() / find(phases, reference).perSecond();
    }

    private static Phase find(List<Phase> phases, String prefix) {
        return phases.stream().filter(phase -> phase.name().startsWith(prefix)).findFirst().orElseThrow();
    }

    private static String averageGroup(String phase, GroupCommitStatistics before, GroupCommitStatistics after) {
        long groups = after.groups() - before.groups();
        long transactions = after.transactions() - before.transactions();
        return String.format(Locale.ROOT, "%s: %,d writes in %,d group commits (fsyncs), %.1f writes each", phase,
                transactions, groups, groups == 0 ? 0.0 : (double) transactions / groups);
    }

    private static void read(StoreClient client, OrderGenerator generator, int index) {
        client.findItem(CONTAINER, PartitionKey.of(generator.customerId(index)), "order-" + index);
    }

    /** A JSON body of 1,024 bytes, about what a point read of an order returns with its system properties. */
    private static byte[] fixedBody() {
        String prefix = "{\"filler\":\"";
        String suffix = "\"}";
        return (prefix + "x".repeat(1024 - prefix.length() - suffix.length()) + suffix).getBytes(StandardCharsets.UTF_8);
    }

    /** The reference for upserts: each of the writers puts whole documents into a plain RocksDB, one fsync each. */
    private static Phase rawSyncedPuts(int writers, Duration duration, Path directory, OrderGenerator generator)
            throws Exception {
        RocksDB.loadLibrary();
        Files.createDirectories(directory);
        try (Options options = new Options().setCreateIfMissing(true).optimizeLevelStyleCompaction();
                RocksDB db = RocksDB.open(options, directory.toString());
                WriteOptions sync = new WriteOptions().setSync(true)) {
            Phase phase = measure("raw RocksDB synced puts (upsert reference)", writers, duration, () -> null,
                    (unused, random) -> {
                        int index = random.nextInt(KEYS);
                        db.put(sync, ("order-" + index).getBytes(StandardCharsets.UTF_8), generator.order(index));
                    });
            return phase;
        }
        finally {
            ImportBenchmark.deleteTree(directory);
        }
    }

    /** The reference for point reads: the same server, its pipeline and threads, answering a fixed body. */
    private static Phase floor(int clients, Duration duration, String baseUri, int bodyBytes) throws Exception {
        URI fixed = URI.create(baseUri + "/containers/" + CONTAINER + "/fixed");
        ThreadLocal<HttpClient> httpClients = ThreadLocal.withInitial(
                () -> HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build());
        return measure("HTTP floor: same server, fixed " + bodyBytes + " B body", clients, duration, () -> null,
                (unused, random) -> {
                    HttpResponse<byte[]> response = httpClients.get().send(HttpRequest.newBuilder(fixed).GET().build(),
                            HttpResponse.BodyHandlers.ofByteArray());
                    if (response.statusCode() != 200 || response.body().length != bodyBytes) {
                        throw new IllegalStateException("The floor answered " + response.statusCode() + " with "
                                + response.body().length + " bytes: " + Arrays.toString(Arrays.copyOf(response.body(),
                                Math.min(80, response.body().length))));
                    }
                });
    }

    @FunctionalInterface
    interface Operation {
        void run(StoreClient client, SplittableRandom random) throws Exception;
    }

    /** Runs the operation on {@code clients} threads for a fifth of {@code duration} unmeasured, then measured. */
    private static Phase measure(String name, int clients, Duration duration, Supplier<StoreClient> clientFactory,
            Operation operation) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        try {
            long warmUpEnd = System.nanoTime() + duration.toNanos() / 5;
            long deadline = warmUpEnd + duration.toNanos();
            List<Future<Histogram>> futures = new ArrayList<>();
            for (int client = 0; client < clients; client++) {
                int seed = client;
                futures.add(pool.submit(() -> {
                    Histogram histogram = new Histogram(60_000_000_000L, 3);
                    SplittableRandom random = new SplittableRandom(seed);
                    // Not closed here: the embedded store is shared and closed by the caller, an HTTP client holds
                    // nothing.
                    StoreClient storeClient = clientFactory.get();
                    while (System.nanoTime() < warmUpEnd) {
                        operation.run(storeClient, random);
                    }
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
            double seconds = duration.toNanos() / 1e9;
            return new Phase(name, total.getTotalCount(), total.getTotalCount() / seconds,
                    total.getValueAtPercentile(50) / 1e6, total.getValueAtPercentile(99) / 1e6);
        }
        finally {
            pool.shutdownNow();
        }
    }
}
