package io.docmirror.mirror;

import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.mirror.manifest.DataFile;
import io.docmirror.mirror.manifest.Manifest;
import io.docmirror.mirror.manifest.ManifestStore;
import io.docmirror.layout.ReaderLeases;
import io.docmirror.mirror.manifest.TableEntry;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.PartitionKey;
import io.docmirror.store.StoreTesting;
import io.docmirror.store.TestingClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Compaction folds a table's files into one base file of its current rows. It must change no query result, keep
 * newer deltas on top, drop rows past the analytical TTL from files, and delete the replaced files once no kept
 * manifest version lists them.
 */
class CompactionTest {
    private static final MirrorConfig NEVER_COMPACTS = MirrorConfig.fromProperties(Map.of(
            "mirror.compaction.delta-files", "0"));
    /** Compacts at every third delta file, keeps one manifest version, so replaced files go at once. */
    private static final MirrorConfig COMPACTS = MirrorConfig.fromProperties(Map.of(
            "mirror.compaction.delta-files", "3", "mirror.manifest.keep-versions", "1",
            "mirror.manifest.keep-ms", "0"));
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

        Manifest manifest = latest(compacted);
        assertThat(manifest.root().files()).extracting(DataFile::kind).contains(DataFile.Kind.BASE)
                .hasSizeLessThan(latest(plain).root().files().size());
        // The history keeps every change in a few files instead of one per commit, so manifests stay small.
        assertThat(latest(plain).history()).hasSizeGreaterThanOrEqualTo(8);
        assertThat(manifest.history()).hasSizeLessThanOrEqualTo(3);
        // The files that compactions replaced are gone from disk: what is there is what the manifest lists.
        assertThat(MirrorFiles.parquetFiles(compacted.resolve("orders"))).isEqualTo(manifest.dataFiles().stream()
                .map(DataFile::path).collect(Collectors.toSet()));
    }

    @Test
    void theFilesOfAVersionAReaderHoldsStayUntilItLetsGo() throws Exception {
        Path mirror = work.resolve("mirror");
        RandomOrders orders = new RandomOrders(store, 5);
        orders.writeRound(0);
        sync(mirror, COMPACTS);
        Manifest held = latest(mirror);
        ReaderLeases.Lease lease = new ReaderLeases(mirror.resolve("orders")).take(held.version());
        for (int round = 1; round < 6; round++) {
            orders.writeRound(round);
            sync(mirror, COMPACTS);
        }
        assertThat(latest(mirror).root().files()).doesNotContainAnyElementsOf(held.root().files());
        // Compactions replaced every file the held version lists, and COMPACTS keeps no older version: the lease
        // alone keeps them, and a reader of that version still gets its answers.
        for (DataFile file : held.dataFiles()) {
            assertThat(mirror.resolve("orders").resolve(file.path())).as("held file %s", file.path()).exists();
        }
        try (MirrorSql sql = MirrorSql.open(mirror, "orders", held)) {
            assertThat(sql.rows("SELECT count(*) FROM orders")).hasSize(1);
        }

        lease.close();
        // The next commit removes the manifests the lease kept; files only they listed go at the next open.
        for (int round = 6; round < 8; round++) {
            orders.writeRound(round);
            sync(mirror, COMPACTS);
        }
        assertThat(MirrorFiles.parquetFiles(mirror.resolve("orders"))).isEqualTo(latest(mirror).dataFiles().stream()
                .map(DataFile::path).collect(Collectors.toSet()));
    }

    @Test
    void deltasCommittedAfterTheCompactedVersionStayOnTopOfItsBase() throws Exception {
        Path mirror = work.resolve("mirror");
        for (int round = 0; round < 3; round++) {
            store.upsertItem("orders", "{\"id\":\"o1\",\"customerId\":\"c1\",\"total\":" + round + "}");
            sync(mirror, COMPACTS);
        }
        assertThat(latest(mirror).root().files()).extracting(DataFile::kind).containsExactly(DataFile.Kind.BASE);

        store.deleteItem("orders", PartitionKey.of("c1"), "o1");
        store.createItem("orders", "{\"id\":\"o2\",\"customerId\":\"c1\",\"total\":5}");
        sync(mirror, COMPACTS);

        assertThat(latest(mirror).root().files()).extracting(DataFile::kind)
                .containsExactly(DataFile.Kind.BASE, DataFile.Kind.DELTA);
        assertThat(rows(mirror, "SELECT id, total FROM orders")).containsExactly(List.of("o2", 5L));
    }

    @Test
    void rowsPastTheAnalyticalTtlLeaveTheFilesAtTheNextCompaction() throws Exception {
        store.createContainer(ContainerProperties.of("metrics", "/host").withAnalyticalTtl(3600));
        Path mirror = work.resolve("mirror");
        store.createItem("metrics", "{\"id\":\"old\",\"host\":\"a\"}");
        sync(mirror, COMPACTS);
        clock.advanceSeconds(7200);
        store.createItem("metrics", "{\"id\":\"new\",\"host\":\"a\"}");
        sync(mirror, COMPACTS);
        store.createItem("metrics", "{\"id\":\"newer\",\"host\":\"b\"}");
        sync(mirror, COMPACTS);

        TableEntry root = new ManifestStore(mirror.resolve("metrics")).latest().orElseThrow().root();
        assertThat(root.files()).extracting(DataFile::kind).containsExactly(DataFile.Kind.BASE);
        assertThat(root.rows()).isEqualTo(2);
        try (MirrorSql sql = MirrorSql.open(mirror, "metrics", OptionalLong.of(clock.instant().getEpochSecond()))) {
            assertThat(sql.rows("SELECT id FROM metrics ORDER BY id")).containsExactly(List.of("new"),
                    List.of("newer"));
        }
    }

    private void sync(Path mirrorDirectory, MirrorConfig config) {
        try (FeedMirror mirror = new FeedMirror(store, mirrorDirectory, config, FlattenerConfig::defaults, clock)) {
            mirror.sync();
        }
    }

    private static Manifest latest(Path mirrorDirectory) {
        return MirrorFiles.latest(mirrorDirectory, "orders");
    }

    private static List<List<Object>> rows(Path mirrorDirectory, String query) throws Exception {
        return MirrorSql.query(mirrorDirectory, "orders", query);
    }
}
