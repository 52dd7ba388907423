package io.docmirror.bench;

import io.docmirror.demo.DemoDataset;
import io.docmirror.layout.CatalogPointers;
import io.docmirror.layout.LocalFileIO;
import io.docmirror.layout.MirrorLayout;
import io.docmirror.layout.MirrorSummary;
import io.docmirror.layout.MirrorTables;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.StoreConfig;
import io.docmirror.store.server.StoreHttpServer;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.TableMetadataParser;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The mirror daemon at scale: for each container size, the demo's orders are loaded into a store (kept between runs),
 * mirrored once by {@code docmirror mirror run} in a process of its own, and then, for the figures, the daemon is
 * started again on the existing mirror and streams updates of random existing orders at
 * {@value #UPDATES_PER_SECOND} a second. Per size it prints: the first load (the changes replayed, and the index), the
 * time from the daemon's start to its first commit on the existing mirror, freshness p50 and p99 of the updates, the
 * daemon's heap from its own GC log (the most used under {@value #HEAP}, and what is live after a full collection at
 * the end of the updates), the document index's size on disk, how long {@code docmirror status} and a first
 * {@code docmirror sql} query take, and how long {@code docmirror reconcile} takes with the most heap it used. The
 * reference beside the heap: what the heap map the index replaced would hold for the same orders (178 bytes an order,
 * measured by {@link IcebergIndexBenchmark}). Usage: {@code ScaleBenchmark workDir secondsOfUpdates size...}.
 */
public final class ScaleBenchmark {
    private static final int UPDATES_PER_SECOND = 10_000;
    private static final String HEAP = "-Xmx1g";
    /** Bytes an order took in the heap map the document index replaced ({@link IcebergIndexBenchmark}). */
    private static final long HEAP_MAP_BYTES_PER_ORDER = 178;
    private static final Duration LOAD_DEADLINE = Duration.ofHours(3);

    private ScaleBenchmark() {
    }

    /** One container size's figures; times in seconds, sizes in bytes. */
    record Row(int orders, double firstLoadSeconds, double startToFirstCommitSeconds,
            FreshnessBenchmark.Phase updates, GcLog.Heap heap, long indexBytes, double statusSeconds,
            double firstQuerySeconds, double reconcileSeconds, long reconcileHeapBytes) {
    }

    public static void main(String[] args) throws Exception {
        Path work = Files.createDirectories(Path.of(args[0]));
        Duration updates = Duration.ofSeconds(Integer.parseInt(args[1]));
        List<Row> rows = new ArrayList<>();
        for (int index = 2; index < args.length; index++) {
            Row row = measure(work, Integer.parseInt(args[index]), updates);
            rows.add(row);
            print(List.of(row));
        }
        System.out.println();
        print(rows);
    }

    private static void print(List<Row> rows) {
        System.out.printf(Locale.ROOT, "%12s %11s %12s %10s %10s %9s %11s %11s %16s %12s %9s %12s %11s %15s%n",
                "orders", "first load", "start→commit", "fresh p50", "fresh p99", "updates/s", "heap used",
                "live (full)", "ref: heap map", "index disk", "status", "first query", "reconcile", "reconcile heap");
        for (Row row : rows) {
            System.out.printf(Locale.ROOT, "%,12d %9.0f s %10.2f s %7.0f ms %7.0f ms %,9.0f %8.0f MB %8.0f MB %13.0f MB "
                            + "%9.0f MB %7.2f s %10.2f s %9.1f s %12.0f MB%n", row.orders(), row.firstLoadSeconds(),
                    row.startToFirstCommitSeconds(), row.updates().p50(), row.updates().p99(),
                    row.updates().achievedRate(), row.heap().mostUsed() / 1e6, row.heap().mostLive() / 1e6,
                    row.orders() * HEAP_MAP_BYTES_PER_ORDER / 1e6, row.indexBytes() / 1e6, row.statusSeconds(),
                    row.firstQuerySeconds(), row.reconcileSeconds(), row.reconcileHeapBytes() / 1e6);
        }
    }

    private static Row measure(Path work, int orders, Duration updates) throws Exception {
        Path directory = Files.createDirectories(work.resolve(orders + "-orders"));
        Path data = directory.resolve("mirror-data");
        Path mirror = MirrorLayout.mirrorDirectory(data);
        DemoDataset dataset = new DemoDataset(orders);
        StoreConfig config = StoreConfig.defaults().withSyncWrites(false);
        try (EmbeddedStore store = EmbeddedStore.open(directory.resolve("store"), config);
                StoreHttpServer server = StoreHttpServer.start(store, config.withHttp("127.0.0.1", 0))) {
            long loadStarted = System.nanoTime();
            long stored = dataset.load(store, done -> { });
            System.out.printf(Locale.ROOT, "%,d orders: %,d stored now in %.0f s%n", orders, stored,
                    (System.nanoTime() - loadStarted) / 1e9);
            ContainerProperties container = store.readContainer(DemoDataset.CONTAINER);

            double firstLoad = Double.NaN;
            if (!Files.exists(mirror)) {
                long started = System.nanoTime();
                try (Daemon daemon = Daemon.start(data, server.baseUri(), directory.resolve("gc-first-load.log"))) {
                    daemon.await("the first load of " + orders + " orders", LOAD_DEADLINE,
                            () -> liveOrders(mirror) == orders);
                }
                firstLoad = (System.nanoTime() - started) / 1e9;
                System.out.printf(Locale.ROOT, "first load: %.0f s%n", firstLoad);
            }

            SplittableRandom random = new SplittableRandom(orders);
            long batchBefore = batch(mirror);
            PacedOrderWriter.update(store, dataset, random.nextLong(orders), random);
            Path gcLog = directory.resolve("gc-streaming.log");
            Files.deleteIfExists(gcLog);
            long started = System.nanoTime();
            try (Daemon daemon = Daemon.start(data, server.baseUri(), gcLog)) {
                daemon.await("the first commit on the existing mirror", Duration.ofMinutes(30),
                        () -> batch(mirror) > batchBefore);
                double startToCommit = (System.nanoTime() - started) / 1e9;
                System.out.printf(Locale.ROOT, "start to first commit: %.2f s%n", startToCommit);
                FreshnessBenchmark.Phase phase = FreshnessBenchmark.measure(container, mirror, UPDATES_PER_SECOND,
                        updates, written -> PacedOrderWriter.update(store, dataset, random.nextLong(orders), random));
                daemon.collectGarbage();
                long indexBytes = directorySize(MirrorLayout.containerDirectory(mirror, DemoDataset.CONTAINER)
                        .resolve("document-index"));
                daemon.close();
                double status = secondsToRun("status", "--data", data.toString(), "--store", server.baseUri());
                double firstQuery = secondsToRun("sql", "--data", data.toString(),
                        "SELECT count(*) FROM " + DemoDataset.CONTAINER);
                System.out.printf(Locale.ROOT, "status: %.2f s, a first query: %.2f s%n", status, firstQuery);
                Path reconcileGcLog = directory.resolve("gc-reconcile.log");
                Files.deleteIfExists(reconcileGcLog);
                double reconcile = secondsToRun(List.of("-Xlog:gc:file=" + reconcileGcLog), "reconcile", "--data",
                        data.toString(), "--store", server.baseUri());
                long reconcileHeap = GcLog.read(reconcileGcLog).mostUsed();
                System.out.printf(Locale.ROOT, "reconcile: %.1f s, %.0f MB of heap at most%n", reconcile,
                        reconcileHeap / 1e6);
                return new Row(orders, firstLoad, startToCommit, phase, GcLog.read(gcLog), indexBytes, status,
                        firstQuery, reconcile, reconcileHeap);
            }
        }
    }

    /**
     * How long {@code docmirror ARGS} takes in a JVM of its own, as a user runs it, from the process's start to its
     * end: what a command that opens the mirror costs at this size.
     */
    private static double secondsToRun(String... arguments) throws IOException, InterruptedException {
        return secondsToRun(List.of(), arguments);
    }

    /** {@link #secondsToRun(String...)}, with {@code jvmOptions} given to the JVM. */
    private static double secondsToRun(List<String> jvmOptions, String... arguments)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(javaCommand());
        command.addAll(1, jvmOptions);
        command.addAll(List.of(arguments));
        Path output = Files.createTempFile("docmirror-scale-command-", ".log");
        long started = System.nanoTime();
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile())
                .start();
        int exit = process.waitFor();
        double seconds = (System.nanoTime() - started) / 1e9;
        if (exit != 0) {
            throw new IllegalStateException("docmirror " + String.join(" ", arguments) + " exited with " + exit
                    + ":\n" + Files.readString(output, StandardCharsets.UTF_8));
        }
        Files.delete(output);
        return seconds;
    }

    /** {@code java ... io.docmirror.cli.Docmirror}, on this benchmark's class path, with the daemon's heap. */
    private static List<String> javaCommand() {
        return List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), HEAP,
                "--add-opens=java.base/java.nio=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                "io.docmirror.cli.Docmirror");
    }

    /** The root table's current snapshot; null before the first commit. */
    private static Snapshot rootSnapshot(Path mirror) {
        String pointer = CatalogPointers.read(mirror).locations()
                .get(MirrorTables.table(DemoDataset.CONTAINER, DemoDataset.CONTAINER));
        return pointer == null ? null : TableMetadataParser.read(new LocalFileIO(), pointer).currentSnapshot();
    }

    private static long batch(Path mirror) {
        Snapshot snapshot = rootSnapshot(mirror);
        return snapshot == null ? 0 : Long.parseLong(snapshot.summary().get(MirrorSummary.BATCH));
    }

    /** The orders the root table holds: its rows less those its deletion vectors delete, from the summary. */
    private static long liveOrders(Path mirror) {
        Snapshot snapshot = rootSnapshot(mirror);
        if (snapshot == null) {
            return 0;
        }
        Map<String, String> summary = snapshot.summary();
        return Long.parseLong(summary.getOrDefault("total-records", "0"))
                - Long.parseLong(summary.getOrDefault("total-position-deletes", "0"));
    }

    private static long directorySize(Path directory) throws IOException {
        try (Stream<Path> files = Files.walk(directory)) {
            return files.filter(Files::isRegularFile).mapToLong(file -> file.toFile().length()).sum();
        }
    }

    /** {@code docmirror mirror run --store URL} in a JVM of its own, as a user runs it, with its GC logged. */
    private static final class Daemon implements AutoCloseable {
        private final Process process;
        private final Path errors;

        private Daemon(Process process, Path errors) {
            this.process = process;
            this.errors = errors;
        }

        static Daemon start(Path data, String storeUrl, Path gcLog) throws IOException {
            Path errors = Files.createTempFile("docmirror-scale-daemon-", ".log");
            List<String> command = new ArrayList<>(javaCommand());
            command.add(1, "-Xlog:gc:file=" + gcLog);
            command.addAll(List.of("mirror", "run", "--data", data.toString(), "--store", storeUrl));
            return new Daemon(new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(errors.toFile())
                    .start(), errors);
        }

        /** A full collection ({@code jcmd PID GC.run}): what is live after it goes into the GC log. */
        void collectGarbage() throws IOException, InterruptedException {
            Process jcmd = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                    Long.toString(process.pid()), "GC.run").redirectErrorStream(true).start();
            String output = new String(jcmd.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (jcmd.waitFor() != 0) {
                throw new IllegalStateException("jcmd GC.run failed: " + output);
            }
        }

        /** Waits until {@code done}, checking every 100 ms; fails when the daemon exits first or time runs out. */
        void await(String what, Duration deadline, BooleanSupplier done) throws IOException, InterruptedException {
            long end = System.nanoTime() + deadline.toNanos();
            while (!done.getAsBoolean()) {
                if (!process.isAlive() || System.nanoTime() > end) {
                    throw new IllegalStateException("Waited " + deadline + " for " + what + "; the daemon is "
                            + (process.isAlive() ? "running" : "gone (exit " + process.exitValue() + ")")
                            + ". Its output ends:\n" + tail());
                }
                Thread.sleep(100);
            }
        }

        private String tail() throws IOException {
            List<String> lines = Files.readAllLines(errors, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        }

        @Override
        public void close() throws InterruptedException {
            process.destroy();
            if (!process.waitFor(2, TimeUnit.MINUTES)) {
                process.destroyForcibly().waitFor();
            }
        }
    }

    /** The heap figures of a JVM's {@code -Xlog:gc} log. */
    static final class GcLog {
        /** A collection's line: {@code ... Pause Young (Normal) (G1 Evacuation Pause) 120M->35M(256M) 5.1ms}. */
        private static final Pattern COLLECTION = Pattern.compile("(\\d+)M->(\\d+)M\\((\\d+)M\\)");

        /**
         * The most heap in use before a collection, and what was live after the last full collection (a young
         * collection's "after" still holds the old generation's garbage, so only a full one tells what is live).
         */
        record Heap(long mostUsed, long mostLive) {
        }

        private GcLog() {
        }

        static Heap read(Path log) throws IOException {
            long mostUsed = 0;
            long mostLive = 0;
            for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
                Matcher collection = COLLECTION.matcher(line);
                if (collection.find()) {
                    mostUsed = Math.max(mostUsed, Long.parseLong(collection.group(1)) << 20);
                    if (line.contains("Pause Full")) {
                        mostLive = Long.parseLong(collection.group(2)) << 20;
                    }
                }
            }
            return new Heap(mostUsed, mostLive);
        }
    }
}
