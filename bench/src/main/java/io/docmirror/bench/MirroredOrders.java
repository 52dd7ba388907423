package io.docmirror.bench;

import io.docmirror.demo.DemoDataset;
import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.mirror.FeedMirror;
import io.docmirror.mirror.MirrorConfig;
import io.docmirror.layout.MirrorLayout;
import io.docmirror.store.BulkOptions;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.StoreClient;
import io.docmirror.store.StoreConfig;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A data directory for the SQL benchmarks: the demo's {@code CustomersOrdersAndItems} orders loaded into the store
 * and mirrored, then a share of them updated (a new status) and mirrored again, so those rows have newer versions in
 * later data files and the versions they replace are deleted by deletion vectors (unless a compaction was due). The
 * same orders, as loaded, are also written as JSON Lines for DuckDB's raw-JSON reference.
 */
record MirroredOrders(Path dataDirectory, Path jsonLines, int orders, int updated) {
    static MirroredOrders build(Path work, int orders, double updatedShare, PrintStream out) throws IOException {
        Path dataDirectory = work.resolve("sql-bench-data");
        Path jsonLines = work.resolve("orders.jsonl");
        DemoDataset dataset = new DemoDataset(orders);
        long startedAt = System.nanoTime();
        int updated;
        try (EmbeddedStore store = EmbeddedStore.open(dataDirectory.resolve("store"),
                StoreConfig.defaults().withSyncWrites(false))) {
            dataset.load(store, done -> { });
            mirror(store, dataDirectory);
            updated = update(store, dataset, updatedShare);
            mirror(store, dataDirectory);
        }
        OrdersJsonLines.write(dataset, jsonLines);
        out.printf(Locale.ROOT, "Loaded and mirrored %,d orders, then updated and mirrored %,d of them (%.0f s)%n",
                orders, updated, (System.nanoTime() - startedAt) / 1e9);
        return new MirroredOrders(dataDirectory, jsonLines, orders, updated);
    }

    Path mirrorDirectory() {
        return MirrorLayout.mirrorDirectory(dataDirectory);
    }

    /**
     * Updates {@code share} of the dataset's orders, spread evenly (every tenth for 10%, so that the updated rows
     * fall in every file), each as it was generated with the status {@code refunded}, in bulk upserts.
     *
     * @return how many orders were updated
     */
    static int update(StoreClient store, DemoDataset dataset, double share) {
        int orders = dataset.orders();
        int updated = (int) Math.round(orders * share);
        int step = Math.max(1, orders / Math.max(1, updated));
        List<byte[]> batch = new ArrayList<>();
        for (int index = 0, count = 0; index < orders && count < updated; index += step, count++) {
            String order = new String(dataset.generator().order(index, dataset.placedAt(index)),
                    StandardCharsets.UTF_8);
            batch.add(order.replaceFirst("\"status\":\"[a-z]+\"", "\"status\":\"refunded\"")
                    .getBytes(StandardCharsets.UTF_8));
            if (batch.size() == 5000) {
                store.bulkWrite(DemoDataset.CONTAINER, batch, BulkOptions.UPSERT);
                batch.clear();
            }
        }
        if (!batch.isEmpty()) {
            store.bulkWrite(DemoDataset.CONTAINER, batch, BulkOptions.UPSERT);
        }
        return updated;
    }

    /** Mirrors every change the store holds with the default configuration, as {@code mirror sync} does. */
    static void mirror(EmbeddedStore store, Path dataDirectory) {
        mirror(store, dataDirectory, MirrorConfig.defaults());
    }

    /** Mirrors every change the store holds with {@code config}, as {@code mirror sync} does. */
    static void mirror(EmbeddedStore store, Path dataDirectory, MirrorConfig config) {
        try (FeedMirror mirror = new FeedMirror(store, MirrorLayout.mirrorDirectory(dataDirectory), config,
                FlattenerConfig::defaults, Clock.systemUTC())) {
            mirror.sync();
        }
    }
}
