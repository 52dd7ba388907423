package io.docmirror.bench;

import io.docmirror.demo.OrderGenerator;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.StoreConfig;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.bulk.JsonLinesImporter;
import io.docmirror.store.bulk.JsonLinesReader;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Locale;

/**
 * {@code import} of generated orders into the store, against raw RocksDB WriteBatch puts of the same bytes (same
 * batch size, same fsync per batch) in the same run. Usage: {@code ImportBenchmark [documents] [workDir]}.
 */
public final class ImportBenchmark {
    static final int BATCH = JsonLinesImporter.Options.DEFAULT_BATCH_DOCUMENTS;

    private ImportBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        long documents = args.length > 0 ? Long.parseLong(args[0]) : 1_000_000;
        Path work = args.length > 1 ? Files.createDirectories(Path.of(args[1]))
                : Files.createTempDirectory("docmirror-import-bench");
        run(documents, work, System.out);
    }

    /**
     * @param rawTwiceDocsPerSecond raw puts of every document twice: the bytes the store must write at least, since
     *     each write and its change event (which holds the document again) are one atomic write
     */
    public record Result(double storeDocsPerSecond, double rawDocsPerSecond, double rawTwiceDocsPerSecond) {
        public double ratio() {
            return storeDocsPerSecond / rawDocsPerSecond;
        }

        public double boundRatio() {
            return storeDocsPerSecond / rawTwiceDocsPerSecond;
        }
    }

    public static Result run(long documents, Path work, PrintStream out) throws Exception {
        Path file = work.resolve("orders.jsonl");
        OrderGenerator generator = new OrderGenerator(42, Math.max(1, (int) (documents / 10)));
        try (OutputStream jsonl = new BufferedOutputStream(Files.newOutputStream(file), 1 << 20)) {
            for (long index = 0; index < documents; index++) {
                jsonl.write(generator.order(index));
                jsonl.write('\n');
            }
        }
        long bytes = Files.size(file);
        out.printf(Locale.ROOT, "Generated %,d orders, %,d bytes (%.0f bytes/document) in %s%n",
                documents, bytes, (double) bytes / documents, file);

        // Warm up both paths briefly so that neither pays for JIT compilation alone.
        runRaw(file, work.resolve("raw-warmup"), Math.min(documents, 20_000), 1);
        runStore(file, work.resolve("store-warmup"), Math.min(documents, 20_000));

        ProcessCpu cpu = new ProcessCpu();
        double rawSeconds = runRaw(file, work.resolve("raw"), documents, 1);
        double rawCores = cpu.coresSinceLast(rawSeconds);
        double rawTwiceSeconds = runRaw(file, work.resolve("raw-twice"), documents, 2);
        double rawTwiceCores = cpu.coresSinceLast(rawTwiceSeconds);
        double storeSeconds = runStore(file, work.resolve("store"), Long.MAX_VALUE);
        double storeCores = cpu.coresSinceLast(storeSeconds);

        Result result = new Result(documents / storeSeconds, documents / rawSeconds, documents / rawTwiceSeconds);
        out.printf(Locale.ROOT, "%-44s %12s %10s %10s %12s%n", "", "docs/s", "MB/s", "CPU cores", "CPU us/doc");
        printRow(out, "raw RocksDB WriteBatch puts (reference)", documents, bytes, rawSeconds, rawCores);
        printRow(out, "raw puts of each document twice (bound)", documents, bytes, rawTwiceSeconds, rawTwiceCores);
        printRow(out, "docmirror import (store + change log)", documents, bytes, storeSeconds, storeCores);
        out.printf(Locale.ROOT, "ratio docmirror / twice-written bound: %.2f (target >= 0.8); docmirror / raw: %.2f; "
                + "raw twice / raw: %.2f%n", result.boundRatio(), result.ratio(),
                result.rawTwiceDocsPerSecond() / result.rawDocsPerSecond());
        // Load-independent: how much more CPU a document costs the import than the bound, and what the import's CPU
        // time would allow with every core of this machine to itself.
        int cores = Runtime.getRuntime().availableProcessors();
        out.printf(Locale.ROOT, "CPU per document, docmirror / bound: %.2fx; on %d idle cores the import's CPU allows at "
                + "most %,.0f docs/s%n", storeSeconds * storeCores / (rawTwiceSeconds * rawTwiceCores), cores,
                documents / (storeSeconds * storeCores) * cores);
        deleteTree(work.resolve("raw"));
        deleteTree(work.resolve("store"));
        return result;
    }

    private static void printRow(PrintStream out, String name, long documents, long bytes, double seconds,
            double cores) {
        out.printf(Locale.ROOT, "%-44s %,12.0f %10.1f %10.2f %12.2f%n", name, documents / seconds, bytes / 1e6 / seconds,
                cores, seconds * cores * 1e6 / documents);
    }

    /** Puts each line {@code copies} times under its line number, {@value #BATCH} lines per synced WriteBatch. */
    private static double runRaw(Path file, Path directory, long limit, int copies) throws Exception {
        RocksDB.loadLibrary();
        Files.createDirectories(directory);
        long start = System.nanoTime();
        try (Options options = new Options().setCreateIfMissing(true).optimizeLevelStyleCompaction();
                RocksDB db = RocksDB.open(options, directory.toString());
                WriteOptions sync = new WriteOptions().setSync(true);
                InputStream in = Files.newInputStream(file)) {
            JsonLinesReader lines = new JsonLinesReader(in);
            WriteBatch batch = new WriteBatch();
            long count = 0;
            byte[] line;
            while (count < limit && (line = lines.next()) != null) {
                for (int copy = 0; copy < copies; copy++) {
                    batch.put(ByteBuffer.allocate(12).putInt(copy).putLong(count).array(), line);
                }
                count++;
                if (batch.count() == BATCH * copies) {
                    db.write(sync, batch);
                    batch.close();
                    batch = new WriteBatch();
                }
            }
            db.write(sync, batch);
            batch.close();
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        deleteTree(directory);
        return seconds;
    }

    private static double runStore(Path file, Path directory, long limit) throws Exception {
        Path input = file;
        if (limit < Long.MAX_VALUE) {
            input = file.resolveSibling("head-" + limit + ".jsonl");
            try (var lines = Files.lines(file); var writer = Files.newBufferedWriter(input)) {
                for (var iterator = lines.limit(limit).iterator(); iterator.hasNext(); ) {
                    writer.write(iterator.next());
                    writer.write('\n');
                }
            }
        }
        long start = System.nanoTime();
        try (EmbeddedStore store = EmbeddedStore.open(directory, StoreConfig.defaults())) {
            store.createContainer(ContainerProperties.of("CustomersOrdersAndItems", "/customerId").withAnalyticalTtl(-1));
            JsonLinesImporter.Summary summary = new JsonLinesImporter(store,
                    JsonLinesImporter.Options.defaults("CustomersOrdersAndItems"))
                    .importFile(input, OutputStream.nullOutputStream(), JsonLinesImporter.Progress.NONE);
            if (summary.rejected() > 0) {
                throw new IllegalStateException("the benchmark's documents were rejected: " + summary.firstRejections());
            }
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        if (!input.equals(file)) {
            Files.delete(input);
        }
        deleteTree(directory);
        return seconds;
    }

    /**
     * The CPU time of this process (every thread, RocksDB's own included) between calls, as cores busy on average:
     * what each phase asks of a machine whose two cores it shares.
     */
    private static final class ProcessCpu {
        private final com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        private long last = os.getProcessCpuTime();

        double coresSinceLast(double seconds) {
            long now = os.getProcessCpuTime();
            double cores = (now - last) / 1e9 / seconds;
            last = now;
            return cores;
        }
    }

    static void deleteTree(Path directory) throws IOException {
        if (!Files.exists(directory)) {
            return;
        }
        try (var paths = Files.walk(directory)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
    }
}
