package io.docmirror.bench;

import io.docmirror.demo.DemoDataset;
import io.docmirror.feed.ChangeFeedMode;
import io.docmirror.feed.ChangeFeedPage;
import io.docmirror.feed.ChangeFeedReader;
import io.docmirror.feed.StartFrom;
import io.docmirror.flatten.Flattener;
import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.flatten.Row;
import io.docmirror.flatten.SourceDocument;
import io.docmirror.flatten.TableSchema;
import io.docmirror.mirror.Backfill;
import io.docmirror.mirror.MirrorConfig;
import io.docmirror.mirror.MirrorLayout;
import io.docmirror.mirror.manifest.DataFile;
import io.docmirror.mirror.manifest.Manifest;
import io.docmirror.mirror.manifest.ManifestStore;
import io.docmirror.mirror.manifest.TableEntry;
import io.docmirror.mirror.parquet.HistoryFormat;
import io.docmirror.mirror.parquet.ParquetDataFileWriter;
import io.docmirror.mirror.parquet.ParquetOptions;
import io.docmirror.mirror.parquet.TableFormat;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.StoreConfig;
import io.docmirror.store.changelog.ChangeEvent;
import org.apache.avro.generic.GenericRecord;

import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Backfill of the demo's orders from the store into the mirror (root table, line items child table, history) against
 * DuckDB converting the same orders from JSON Lines into one Parquet file with {@code COPY (SELECT * FROM
 * read_json_auto(...)) TO ... (FORMAT parquet)}, and against parquet-avro alone writing the backfill's rows, in the
 * same run; plus the backfill's peak heap. Usage:
 * {@code BackfillBenchmark [orders] [workDir]}.
 */
public final class BackfillBenchmark {
    private BackfillBenchmark() {
    }

    /**
     * @param peakHeapBytes the most heap in use at any sample (every 10 ms) during the backfill, garbage included
     */
    public record Result(long documents, double backfillSeconds, double duckDbSeconds, long mirrorRows,
            long mirrorBytes, long duckDbRows, long duckDbBytes, long peakHeapBytes,
            double parquetAvroSecondsPerDocument) {
        public double ratio() {
            return backfillSeconds / duckDbSeconds;
        }

        /** parquet-avro alone, writing the backfill's rows for every document, against DuckDB's whole COPY. */
        public double parquetAvroRatio() {
            return parquetAvroSecondsPerDocument * documents / duckDbSeconds;
        }
    }

    /** Documents whose rows the parquet-avro reference holds in memory as records (over 1 GB for 100,000). */
    private static final int PARQUET_AVRO_SAMPLE = 50_000;

    public static void main(String[] args) throws Exception {
        int orders = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        Path work = args.length > 1 ? Files.createDirectories(Path.of(args[1]))
                : Files.createTempDirectory("docmirror-backfill-bench");
        run(orders, work, System.out);
    }

    public static Result run(int orders, Path work, PrintStream out) throws Exception {
        DemoDataset dataset = new DemoDataset(orders);
        Path data = work.resolve("backfill-bench-data");
        Path jsonLines = work.resolve("orders.jsonl");
        try (OutputStream file = Files.newOutputStream(jsonLines)) {
            for (int index = 0; index < orders; index++) {
                file.write(dataset.generator().order(index, dataset.placedAt(index)));
                file.write('\n');
            }
        }
        out.printf(Locale.ROOT, "%,d orders, %.0f MB of JSON Lines%n", orders, Files.size(jsonLines) / 1e6);

        Result result;
        try (EmbeddedStore store = EmbeddedStore.open(data.resolve("store"),
                StoreConfig.defaults().withSyncWrites(false))) {
            dataset.load(store, done -> { });
            System.gc();
            HeapSampler heap = HeapSampler.start();
            long startedAt = System.nanoTime();
            Backfill.Result backfill = new Backfill(store, MirrorLayout.mirrorDirectory(data), MirrorConfig.defaults(),
                    FlattenerConfig.defaults(DemoDataset.CONTAINER), Clock.systemUTC())
                    .run(DemoDataset.CONTAINER, Backfill.Listener.NONE);
            double backfillSeconds = (System.nanoTime() - startedAt) / 1e9;
            long peakHeap = heap.stop();
            Manifest manifest = new ManifestStore(MirrorLayout.containerDirectory(MirrorLayout.mirrorDirectory(data),
                    DemoDataset.CONTAINER)).latest().orElseThrow();
            long rows = 0;
            long bytes = 0;
            for (DataFile file : manifest.dataFiles()) {
                rows += file.rows();
                bytes += file.bytes();
            }
            out.printf(Locale.ROOT, "backfill: %,d documents in %.1f s (%,.0f docs/s); peak heap %,d MB%n",
                    backfill.items(), backfillSeconds, backfill.items() / backfillSeconds, peakHeap >> 20);
            for (TableEntry table : manifest.tables()) {
                out.printf(Locale.ROOT, "  table %s: %,d rows, %d columns, %d files%n", table.name(), table.rows(),
                        table.columns().size(), table.files().size());
            }
            out.printf(Locale.ROOT, "  history: %,d rows; all files %,.0f MB%n",
                    manifest.history().stream().mapToLong(DataFile::rows).sum(), bytes / 1e6);

            Path duckDbFile = work.resolve("duckdb-orders.parquet");
            startedAt = System.nanoTime();
            long duckDbRows;
            try (Connection duckDb = DriverManager.getConnection("jdbc:duckdb:");
                    Statement statement = duckDb.createStatement()) {
                statement.execute("COPY (SELECT * FROM read_json_auto('" + jsonLines + "')) TO '" + duckDbFile
                        + "' (FORMAT parquet)");
                double duckDbSeconds = (System.nanoTime() - startedAt) / 1e9;
                try (ResultSet count = statement.executeQuery("SELECT count(*) FROM '" + duckDbFile + "'")) {
                    count.next();
                    duckDbRows = count.getLong(1);
                }
                out.printf(Locale.ROOT, "DuckDB COPY read_json_auto -> Parquet: %,d rows (line items as a nested "
                                + "LIST of STRUCTs in one table) in %.1f s (%,.0f docs/s), %,.0f MB%n", duckDbRows,
                        duckDbSeconds, orders / duckDbSeconds, Files.size(duckDbFile) / 1e6);
                double parquetAvroSeconds = parquetAvroSecondsPerDocument(store, work.resolve("parquet-avro"),
                        Math.min(orders, PARQUET_AVRO_SAMPLE));
                out.printf(Locale.ROOT, "parquet-avro alone, writing the same tables and history from records "
                                + "built beforehand: %,.0f docs/s (%,d documents), %.1f s for %,d%n",
                        1 / parquetAvroSeconds, Math.min(orders, PARQUET_AVRO_SAMPLE), parquetAvroSeconds * orders,
                        orders);
                result = new Result(backfill.items(), backfillSeconds, duckDbSeconds, rows, bytes, duckDbRows,
                        Files.size(duckDbFile), peakHeap, parquetAvroSeconds);
            }
        }
        out.printf(Locale.ROOT, "ratio backfill / DuckDB: %.2f (target <= 1.0); parquet-avro alone / DuckDB: %.2f%n",
                result.ratio(), result.parquetAvroRatio());
        return result;
    }

    /**
     * Seconds per document that parquet-avro alone takes to write a document's rows (its table rows and its
     * history row), with the mirror's writer and options, on as many encoder threads as the mirror uses. The
     * records are built beforehand from the first {@code documents} change events, so reading, parsing,
     * flattening and converting values are not counted: this is the floor the mirror's Parquet writing cannot go
     * below while it writes through parquet-avro.
     */
    private static double parquetAvroSecondsPerDocument(EmbeddedStore store, Path directory, int documents) {
        Flattener flattener = Flattener.create(FlattenerConfig.defaults(DemoDataset.CONTAINER));
        List<Row> rows = new ArrayList<>();
        List<GenericRecord> history = new ArrayList<>(documents);
        for (ChangeEvent event : firstEvents(store, documents)) {
            String partitionKey = event.partitionKey().toString();
            rows.addAll(flattener.flatten(new SourceDocument(DemoDataset.CONTAINER, partitionKey, event.lsn(),
                    event.document().orElseThrow())).rows());
            history.add(HistoryFormat.record(event, partitionKey, event.ts() / 1000,
                    new String(event.documentJson().orElseThrow(), StandardCharsets.UTF_8)));
        }
        // Formats made after flattening know every column, so one file per table takes all its rows.
        Map<TableSchema, TableFormat> formats = new LinkedHashMap<>();
        Map<TableSchema, List<GenericRecord>> records = new LinkedHashMap<>();
        for (Row row : rows) {
            TableFormat format = formats.computeIfAbsent(row.table(), TableFormat::of);
            records.computeIfAbsent(row.table(), table -> new ArrayList<>()).add(format.record(row));
        }
        rows.clear();

        ExecutorService encoders = Executors.newFixedThreadPool(Runtime.getRuntime().availableProcessors());
        try {
            long startedAt = System.nanoTime();
            List<ParquetDataFileWriter> files = new ArrayList<>();
            ParquetDataFileWriter historyFile = new ParquetDataFileWriter(directory, "history.parquet",
                    DataFile.Kind.BASE, HistoryFormat.SCHEMA, HistoryFormat.LSN_FIELD, ParquetOptions.defaults(),
                    encoders);
            files.add(historyFile);
            history.forEach(historyFile::write);
            for (Map.Entry<TableSchema, List<GenericRecord>> table : records.entrySet()) {
                TableFormat format = formats.get(table.getKey());
                ParquetDataFileWriter file = new ParquetDataFileWriter(directory, format.table() + ".parquet",
                        DataFile.Kind.BASE, format.schema(), format.indexOf("_lsn"),
                        ParquetOptions.defaults(), encoders);
                files.add(file);
                table.getValue().forEach(file::write);
            }
            files.forEach(ParquetDataFileWriter::finish);
            return (System.nanoTime() - startedAt) / 1e9 / documents;
        } finally {
            encoders.shutdown();
        }
    }

    /** The first {@code count} change events of the demo container, read through the change feed. */
    private static List<ChangeEvent> firstEvents(EmbeddedStore store, int count) {
        ChangeFeedReader feed = ChangeFeedReader.open(store, DemoDataset.CONTAINER,
                ChangeFeedMode.ALL_VERSIONS_AND_DELETES, StartFrom.beginning());
        List<ChangeEvent> events = new ArrayList<>(count);
        while (events.size() < count) {
            ChangeFeedPage page = feed.readNext(Math.min(1000, count - events.size()));
            events.addAll(page.events());
            if (page.caughtUp()) {
                break;
            }
        }
        return events;
    }

    /** Samples the heap in use every 10 ms on a daemon thread, keeping the highest. */
    private static final class HeapSampler {
        private final AtomicLong peak = new AtomicLong();
        private final Thread thread;
        private volatile boolean stopped;

        private HeapSampler() {
            MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
            thread = new Thread(() -> {
                while (!stopped) {
                    peak.accumulateAndGet(memory.getHeapMemoryUsage().getUsed(), Math::max);
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

        long stop() throws InterruptedException {
            stopped = true;
            thread.join();
            return peak.get();
        }
    }
}
