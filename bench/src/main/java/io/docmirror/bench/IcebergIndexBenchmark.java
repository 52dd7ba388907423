package io.docmirror.bench;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.docmirror.demo.OrderGenerator;
import io.docmirror.feed.ContinuationToken;
import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.layout.MirrorLayout;
import io.docmirror.mirror.MirrorConfig;
import io.docmirror.mirror.iceberg.ContainerBatch;
import io.docmirror.mirror.iceberg.ContainerTables;
import io.docmirror.mirror.source.Checkpoint;
import io.docmirror.store.PartitionKey;
import io.docmirror.store.PartitionKeyValue;
import io.docmirror.store.StoreJson;
import io.docmirror.store.changelog.ChangeEvent;
import io.docmirror.store.changelog.Operation;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The Iceberg mirror's document index (where each document's current rows are, on disk): how long opening the tables
 * takes and what it adds to the heap, with the index current and with the index rebuilt from the tables, and its
 * size on disk per million documents. The demo's orders (a root row and about three line-item rows each) are
 * streamed into the Iceberg tables in batches of 50,000 first; that streaming rate is printed too. The reference,
 * measured in the same run: a plain {@code HashMap} from the same keys to one {@code long} per row, in heap, as the
 * index was before it moved to disk. Usage: {@code IcebergIndexBenchmark [orders] [workDir]}.
 */
public final class IcebergIndexBenchmark {
    private static final int BATCH = 50_000;

    private IcebergIndexBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int orders = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        Path work = args.length > 1 ? Path.of(args[1]) : Files.createTempDirectory("docmirror-index-bench");
        Path mirror = work.resolve("mirror");
        OrderGenerator generator = new OrderGenerator(42, Math.max(1, orders / 10));
        FlattenerConfig flattener = FlattenerConfig.defaults("orders");
        MirrorConfig config = MirrorConfig.defaults();

        // The reference first, and dropped before the index is measured: one long per row of each order.
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        long before = usedHeap(memory);
        Map<String, long[]> reference = new HashMap<>();
        for (int index = 0; index < orders; index++) {
            byte[] json = generator.order(index);
            int items = StoreJson.mapper().readTree(json).path("items").size();
            reference.put("order-" + index + '\u0000' + "\"" + generator.customerId(index) + "\"",
                    new long[1 + items]);
        }
        long referenceBytes = usedHeap(memory) - before;
        if (reference.size() != orders) {
            throw new IllegalStateException("The reference lost keys");
        }
        reference = null;

        long start = System.nanoTime();
        long rows = 0;
        try (ContainerTables tables = ContainerTables.open(mirror, "orders", flattener, config)) {
            for (int first = 0; first < orders; first += BATCH) {
                ContainerBatch batch = tables.begin();
                for (int index = first; index < Math.min(orders, first + BATCH); index++) {
                    byte[] json = generator.order(index);
                    ObjectNode document = (ObjectNode) StoreJson.mapper().readTree(json);
                    rows += 1 + (document.has("items") ? document.get("items").size() : 0);
                    PartitionKeyValue customer = PartitionKeyValue.of(PartitionKey.of(generator.customerId(index)));
                    batch.add(new ChangeEvent("orders", customer, "order-" + index, Operation.CREATE, index + 1,
                            1_700_000_000_000L + index, false, Optional.of(document), Optional.empty()));
                }
                // The batch ends at the LSN of its last order, in the one feed range.
                long lastLsn = Math.min(orders, first + BATCH);
                batch.commit(Checkpoint.ofContinuation(new ContinuationToken("orders", Map.of(0, lastLsn)).encode()));
            }
        }
        double streamSeconds = (System.nanoTime() - start) / 1e9;

        Path index = MirrorLayout.containerDirectory(mirror, "orders").resolve("document-index");
        Opened current = open(mirror, flattener, config, memory);
        long indexDiskBytes = directorySize(index);
        // A lost index (or one a crash left behind its commit) is rebuilt from the tables' key columns.
        deleteDirectory(index);
        Opened rebuilt = open(mirror, flattener, config, memory);

        System.out.printf(Locale.ROOT, "orders streamed into Iceberg tables        %,10d in %.1f s (%,.0f docs/s, "
                + "%,d rows)%n", orders, streamSeconds, orders / streamSeconds, rows);
        System.out.printf(Locale.ROOT, "documents in the index                     %,10d%n", current.documents());
        System.out.printf(Locale.ROOT, "open, index current                        %,10.2f s, heap %+,.1f MB%n",
                current.seconds(), current.heapBytes() / 1e6);
        System.out.printf(Locale.ROOT, "open, index rebuilt from the tables        %,10.2f s, heap %+,.1f MB%n",
                rebuilt.seconds(), rebuilt.heapBytes() / 1e6);
        System.out.printf(Locale.ROOT, "index on disk                              %,10.1f MB (%,.0f bytes a document, "
                + "%,.0f MB per million)%n", indexDiskBytes / 1e6, (double) indexDiskBytes / current.documents(),
                indexDiskBytes / 1e6 / current.documents() * 1e6);
        System.out.printf(Locale.ROOT, "reference: HashMap<String, long[]> in heap %,10.1f MB (%,.0f bytes a document)%n",
                referenceBytes / 1e6, (double) referenceBytes / orders);
    }

    /** How long opening the tables took, what it added to the heap, and how many documents the index holds. */
    private record Opened(double seconds, long heapBytes, long documents) {
    }

    private static Opened open(Path mirror, FlattenerConfig flattener, MirrorConfig config, MemoryMXBean memory) {
        long before = usedHeap(memory);
        long start = System.nanoTime();
        try (ContainerTables tables = ContainerTables.open(mirror, "orders", flattener, config)) {
            double seconds = (System.nanoTime() - start) / 1e9;
            return new Opened(seconds, usedHeap(memory) - before, tables.documents());
        }
    }

    private static long directorySize(Path directory) throws IOException {
        try (Stream<Path> files = Files.walk(directory)) {
            return files.filter(Files::isRegularFile).mapToLong(file -> file.toFile().length()).sum();
        }
    }

    private static void deleteDirectory(Path directory) throws IOException {
        try (Stream<Path> files = Files.walk(directory)) {
            for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(file);
            }
        }
    }

    private static long usedHeap(MemoryMXBean memory) {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return memory.getHeapMemoryUsage().getUsed();
    }
}
