package io.docmirror.mirror;

import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.layout.ContainerSnapshot;
import io.docmirror.layout.LocalFileIO;
import io.docmirror.layout.MirrorLayout;
import io.docmirror.layout.ReaderLeases;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.PartitionKey;
import io.docmirror.store.StoreTesting;
import io.docmirror.store.TestingClock;
import org.apache.iceberg.DataFile;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Random;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Compaction rewrites a tier of a table's files of one size (and files with many deleted rows) into files of their
 * current rows, between batches ({@code CompactionPlan} is the policy). It must change no query result, keep the
 * batches committed after it on top, bound the number of files, leave large files alone until enough of their rows
 * are superseded, and let snapshot expiry delete the replaced files once no kept snapshot and no reader's lease
 * needs them.
 */
class CompactionTest {
    private static final MirrorConfig NEVER_COMPACTS = MirrorConfig.fromProperties(Map.of(
            "mirror.compaction.files", "0"));
    /** Compacts a table at its third small file, keeps one snapshot, so replaced files go at once. */
    private static final MirrorConfig COMPACTS = MirrorConfig.fromProperties(Map.of(
            "mirror.compaction.files", "3", "mirror.snapshots.keep", "1", "mirror.snapshots.keep-ms", "0"));
    private static final List<String> QUERIES = List.of(
            "SELECT id, customerId, status, total FROM orders ORDER BY id",
            "SELECT _id, _idx, sku, qty FROM orders__items ORDER BY _id, _idx",
            "SELECT id, _lsn, operation FROM orders_history ORDER BY _pk, _lsn");

    @TempDir
    Path work;

    private final TestingClock clock = TestingClock.atEpochSecond(1_700_000_000L);
    private EmbeddedStore store;

    @BeforeEach
    void openStore() {
        store = StoreTesting.openWithClock(work.resolve("store"), clock);
        store.createContainer(ContainerProperties.of("orders", "/customerId").withAnalyticalTtl(-1));
    }

    @AfterEach
    void closeStore() {
        store.close();
    }

    @Test
    void aCompactedMirrorAnswersEveryQueryAsTheUncompactedOneDoes() throws Exception {
        Path plain = work.resolve("plain");
        Path compacted = work.resolve("compacted");
        RandomOrders orders = new RandomOrders(store, 11);
        for (int round = 0; round < 8; round++) {
            orders.writeRound(round);
            sync(plain, NEVER_COMPACTS);
            sync(compacted, COMPACTS);
            for (String query : QUERIES) {
                assertThat(rows(compacted, query)).as("round %d: %s", round, query).isEqualTo(rows(plain, query));
            }
        }

        // Uncompacted, every batch adds a file to the root and the history; compacted, no table stays at three.
        assertThat(MirrorFiles.dataFiles(plain, "orders", "orders")).hasSizeGreaterThanOrEqualTo(8);
        assertThat(MirrorFiles.liveFiles(plain, "orders", "orders_history")).hasSizeGreaterThanOrEqualTo(8);
        for (ContainerSnapshot.FlattenedTable table : MirrorFiles.latest(compacted, "orders").tables()) {
            assertThat(table.view().dataFiles()).as(table.name()).hasSizeLessThan(3);
        }
        assertThat(MirrorFiles.liveFiles(compacted, "orders", "orders_history")).hasSizeLessThan(3);
        // The files that compactions replaced are gone from disk: what is there is what the kept snapshots list, and
        // what the newest snapshots replaced (Iceberg deletes those when their snapshot expires).
        assertThat(MirrorFiles.parquetFiles(compacted, "orders")).isEqualTo(keptOnDisk(compacted));
    }

    @Test
    void theFilesOfABatchAReaderHoldsStayUntilItLetsGo() throws Exception {
        Path mirror = work.resolve("mirror");
        RandomOrders orders = new RandomOrders(store, 5);
        orders.writeRound(0);
        sync(mirror, COMPACTS);
        ContainerSnapshot held = MirrorFiles.latest(mirror, "orders");
        List<List<Object>> heldAnswer = rows(mirror, QUERIES.get(0));
        ReaderLeases.Lease lease = new ReaderLeases(MirrorLayout.containerDirectory(mirror, "orders"))
                .take(MirrorFiles.batch(mirror, "orders"));
        for (int round = 1; round < 6; round++) {
            orders.writeRound(round);
            sync(mirror, COMPACTS);
        }
        assertThat(MirrorFiles.dataFiles(mirror, "orders", "orders"))
                .doesNotContainAnyElementsOf(held.root().view().dataFiles());
        // Compactions replaced every file the held batch's snapshot lists, and COMPACTS keeps one snapshot: the lease
        // alone keeps them, and a reader of that batch still gets its answers.
        List<String> heldFiles = dataFiles(held);
        for (String file : heldFiles) {
            assertThat(LocalFileIO.pathOf(file)).as("held file %s", file).exists();
        }
        try (MirrorSql sql = MirrorSql.open(held, OptionalLong.empty())) {
            assertThat(sql.rows(QUERIES.get(0))).isEqualTo(heldAnswer).isNotEmpty();
        }

        lease.close();
        // The next maintenance expires the snapshots the lease kept, and their files go with them.
        for (int round = 6; round < 8; round++) {
            orders.writeRound(round);
            sync(mirror, COMPACTS);
        }
        assertThat(MirrorFiles.parquetFiles(mirror, "orders")).isEqualTo(keptOnDisk(mirror));
        assertThat(heldFiles).as("files only the released batch needed")
                .noneMatch(file -> LocalFileIO.pathOf(file).toFile().exists());
    }

    @Test
    void batchesCommittedAfterACompactionStayOnTopOfItsFile() throws Exception {
        Path mirror = work.resolve("mirror");
        for (int round = 0; round < 3; round++) {
            store.upsertItem("orders", "{\"id\":\"o1\",\"customerId\":\"c1\",\"total\":" + round + "}");
            sync(mirror, COMPACTS);
        }
        List<String> compacted = MirrorFiles.dataFiles(mirror, "orders", "orders");
        assertThat(compacted).hasSize(1);
        assertThat(MirrorFiles.latest(mirror, "orders").root().view().deletedRows()).isZero();

        store.deleteItem("orders", PartitionKey.of("c1"), "o1");
        store.createItem("orders", "{\"id\":\"o2\",\"customerId\":\"c1\",\"total\":5}");
        sync(mirror, COMPACTS);

        // The compacted file stays, its one row deleted by a deletion vector; the new row is in a file of its own.
        assertThat(MirrorFiles.dataFiles(mirror, "orders", "orders")).hasSize(2).containsAll(compacted);
        assertThat(MirrorFiles.latest(mirror, "orders").root().view().deletedRows()).isEqualTo(1);
        assertThat(rows(mirror, "SELECT id, total FROM orders")).containsExactly(List.of("o2", 5L));
    }

    @Test
    void rowsPastTheAnalyticalTtlStayOutOfQueriesAcrossACompaction() throws Exception {
        store.createContainer(ContainerProperties.of("metrics", "/host").withAnalyticalTtl(3600));
        Path mirror = work.resolve("mirror");
        store.createItem("metrics", "{\"id\":\"old\",\"host\":\"a\"}");
        sync(mirror, COMPACTS);
        clock.advanceSeconds(7200);
        store.createItem("metrics", "{\"id\":\"new\",\"host\":\"a\"}");
        sync(mirror, COMPACTS);
        store.createItem("metrics", "{\"id\":\"newer\",\"host\":\"b\"}");
        sync(mirror, COMPACTS);

        assertThat(MirrorFiles.dataFiles(mirror, "metrics", "metrics")).as("compacted").hasSize(1);
        try (MirrorSql sql = MirrorSql.open(mirror, "metrics", OptionalLong.of(clock.instant().getEpochSecond()))) {
            assertThat(sql.rows("SELECT id FROM metrics ORDER BY id")).containsExactly(List.of("new"),
                    List.of("newer"));
        }
    }

    @Test
    void recentSmallFilesMergeAmongThemselvesAndALargeFileIsRewrittenOnlyWhenATenthOfItIsSuperseded()
            throws Exception {
        Path plain = work.resolve("plain");
        Path compacted = work.resolve("compacted");
        // Enough orders, with a field that does not compress, for root files of 1 MiB or more.
        Random random = new Random(3);
        int bulk = 40_000;
        for (int order = 0; order < bulk; order++) {
            store.createItem("orders", bulkOrder(order, random, "new"));
        }
        sync(plain, NEVER_COMPACTS);
        sync(compacted, COMPACTS);
        List<DataFile> loaded = MirrorFiles.liveFiles(compacted, "orders", "orders");
        List<String> large = loaded.stream().filter(file -> file.fileSizeInBytes() >= 1 << 20)
                .map(DataFile::location).toList();
        assertThat(large).as("root files of 1 MiB or more, of %s", loaded).isNotEmpty();

        RandomOrders orders = new RandomOrders(store, 13);
        for (int round = 0; round < 6; round++) {
            orders.writeRound(round);
            sync(plain, NEVER_COMPACTS);
            sync(compacted, COMPACTS);
        }
        List<String> after = locations(MirrorFiles.liveFiles(compacted, "orders", "orders"));
        assertThat(after).as("the large files stay as they are").containsAll(large);
        assertThat(after.size() - large.size()).as("small files, merged at three").isLessThan(3);
        for (String query : QUERIES) {
            assertThat(rows(compacted, query)).as(query).isEqualTo(rows(plain, query));
        }

        // A tenth of the bulk orders updated: every large file has a tenth of its rows superseded, and is rewritten.
        for (int order = 0; order < bulk; order += 9) {
            store.upsertItem("orders", bulkOrder(order, random, "updated"));
        }
        sync(plain, NEVER_COMPACTS);
        sync(compacted, COMPACTS);
        assertThat(locations(MirrorFiles.liveFiles(compacted, "orders", "orders"))).doesNotContainAnyElementsOf(large);
        for (String query : QUERIES) {
            assertThat(rows(compacted, query)).as(query).isEqualTo(rows(plain, query));
        }
    }

    private static List<String> locations(List<DataFile> files) {
        return files.stream().map(DataFile::location).toList();
    }

    private static String bulkOrder(int order, Random random, String status) {
        byte[] note = new byte[48];
        random.nextBytes(note);
        return "{\"id\":\"bulk" + order + "\",\"customerId\":\"c" + (order % 7) + "\",\"status\":\"" + status
                + "\",\"total\":" + order + ",\"note\":\"" + HexFormat.of().formatHex(note) + "\",\"items\":[]}";
    }

    @Test
    void theMirrorCountsTheCompactionsItCommits() {
        Path compacted = work.resolve("compacted");
        Path plain = work.resolve("plain");
        RandomOrders orders = new RandomOrders(store, 7);
        long streamCommits = 0;
        try (FeedMirror compacting = new FeedMirror(store, compacted, COMPACTS, FlattenerConfig::defaults, clock);
                FeedMirror never = new FeedMirror(store, plain, NEVER_COMPACTS, FlattenerConfig::defaults, clock)) {
            for (int round = 0; round < 6; round++) {
                orders.writeRound(round);
                streamCommits += compacting.sync().commits();
                never.sync();
            }

            // Every commit takes the next batch number: those that did not stream changes were compactions.
            long compactions = MirrorFiles.batch(compacted, "orders") - streamCommits;
            assertThat(compactions).isPositive();
            assertThat(compacting.activity()).singleElement()
                    .satisfies(activity -> assertThat(activity.compactions()).isEqualTo(compactions));
            assertThat(never.activity()).singleElement()
                    .satisfies(activity -> assertThat(activity.compactions()).isZero());
        }
    }

    private void sync(Path mirrorDirectory, MirrorConfig config) {
        try (FeedMirror mirror = new FeedMirror(store, mirrorDirectory, config, FlattenerConfig::defaults, clock)) {
            mirror.sync();
        }
    }

    /** The files a mirror of orders keeps: those its kept snapshots list, and those its newest snapshots removed. */
    private static Set<String> keptOnDisk(Path mirrorDirectory) {
        Set<String> kept = new HashSet<>(MirrorFiles.listed(mirrorDirectory, "orders"));
        kept.addAll(MirrorFiles.removedByLatest(mirrorDirectory, "orders"));
        return kept;
    }

    /** The data files of every flattened table of {@code snapshot}. */
    private static List<String> dataFiles(ContainerSnapshot snapshot) {
        List<String> files = new ArrayList<>();
        snapshot.tables().forEach(table -> files.addAll(table.view().dataFiles()));
        return files;
    }

    private static List<List<Object>> rows(Path mirrorDirectory, String query) throws Exception {
        return MirrorSql.query(mirrorDirectory, "orders", query);
    }
}
