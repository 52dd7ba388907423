package io.docmirror.mirror;

import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.layout.MirrorLayout;
import io.docmirror.store.BulkOptions;
import io.docmirror.store.ChildProcesses;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.StoreConfig;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A backfill SIGKILLed while it writes a feed range's Parquet files (or commits it) goes on where it stopped when run
 * again: the ranges it committed are not read again, the files of the one it was writing are cleaned up, and the
 * finished mirror equals one built from the change feed.
 */
@Tag("slow")
class BackfillCrashTest {
    private static final int ORDERS = 24_000;
    private static final int KILLS = 3;
    private static final List<String> QUERIES = List.of(
            "SELECT id, customerId, total, note FROM orders ORDER BY id",
            "SELECT _id, _idx, sku, qty FROM orders__items ORDER BY _id, _idx");

    @TempDir
    Path data;

    @Test
    void aKilledBackfillResumesAndFinishesExactly() throws Exception {
        Random random = new Random(20261123);
        try (EmbeddedStore store = EmbeddedStore.open(data.resolve("store"), StoreConfig.defaults())) {
            store.createContainer(ContainerProperties.of("orders", "/customerId").withAnalyticalTtl(-1)
                    .withLogPartitions(8));
            List<byte[]> documents = new ArrayList<>();
            for (int order = 0; order < ORDERS; order++) {
                documents.add(("{\"id\":\"o" + order + "\",\"customerId\":\"c" + random.nextInt(900) + "\",\"total\":"
                        + random.nextInt(10_000) + (order % 5 == 0 ? ",\"note\":\"gift\"" : "") + ",\"items\":[{"
                        + "\"sku\":\"S" + random.nextInt(50) + "\",\"qty\":" + (1 + random.nextInt(3)) + "},{\"sku\":"
                        + "\"T" + random.nextInt(50) + "\",\"qty\":1}]}").getBytes(StandardCharsets.UTF_8));
            }
            store.bulkWrite("orders", documents, BulkOptions.CREATE);
        }

        int committedBeforeKills = 0;
        for (int kill = 0; kill < KILLS; kill++) {
            Process worker = ChildProcesses.startJava(BackfillCrashWorker.class.getName(), "running",
                    data.toString());
            BufferedReader out = new BufferedReader(new InputStreamReader(worker.getInputStream(),
                    StandardCharsets.UTF_8));
            // Kill it a moment after it commits a range: while it writes the next one's files, or commits it.
            assertThat(out.readLine()).startsWith("committed");
            committedBeforeKills++;
            Thread.sleep(random.nextInt(150));
            ChildProcesses.sigkill(worker);
        }

        Path scratch = MirrorLayout.containerDirectory(MirrorLayout.mirrorDirectory(data), "orders")
                .resolve(ScratchDirectory.NAME);
        try (Stream<Path> left = Files.exists(scratch) ? Files.walk(scratch) : Stream.empty()) {
            System.out.println("The killed backfills left " + left.filter(Files::isRegularFile).count()
                    + " files in " + scratch);
        }

        Path streamed = data.resolve("streamed");
        try (EmbeddedStore store = EmbeddedStore.open(data.resolve("store"), StoreConfig.defaults())) {
            // Files younger than mirror.snapshots.keep-ms that no table reaches are left for a later open; at 0, this
            // one removes at once what the killed runs left.
            Backfill.Result result = new Backfill(store, MirrorLayout.mirrorDirectory(data),
                    MirrorConfig.fromProperties(Map.of("mirror.snapshots.keep-ms", "0")),
                    FlattenerConfig.defaults("orders"), Clock.systemUTC()).run("orders", Backfill.Listener.NONE);
            assertThat(result.rangesResumed()).isGreaterThanOrEqualTo(committedBeforeKills).isLessThan(8);
            assertThat(result.items()).isEqualTo(ORDERS);
            try (FeedMirror mirror = new FeedMirror(store, streamed, MirrorConfig.defaults(),
                    FlattenerConfig::defaults, Clock.systemUTC())) {
                mirror.sync();
            }
        }
        for (String query : QUERIES) {
            try (MirrorSql backfilled = MirrorSql.open(MirrorLayout.mirrorDirectory(data), "orders");
                    MirrorSql fromFeed = MirrorSql.open(streamed, "orders")) {
                assertThat(backfilled.rows(query)).as(query).hasSizeGreaterThanOrEqualTo(ORDERS)
                        .isEqualTo(fromFeed.rows(query));
            }
        }
        // Nothing a killed run wrote is left behind: the files on disk are the ones the tables' snapshots list.
        assertThat(MirrorFiles.parquetFiles(MirrorLayout.mirrorDirectory(data), "orders"))
                .isEqualTo(MirrorFiles.listed(MirrorLayout.mirrorDirectory(data), "orders"));
        // Nor what DuckDB was writing locally when a run was killed: the next writer of the container removed it.
        assertThat(scratch).doesNotExist();
    }
}
