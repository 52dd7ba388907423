package io.docmirror.mirror;

import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.layout.LocalFileIO;
import io.docmirror.layout.MirrorSummary;
import io.docmirror.mirror.iceberg.ContainerTables;
import io.docmirror.mirror.reconcile.ReconcileReport;
import io.docmirror.mirror.reconcile.Reconciler;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.PartitionKey;
import io.docmirror.store.StoreConfig;
import io.docmirror.store.StoreTesting;
import io.docmirror.store.TestingClock;
import org.apache.iceberg.DataFile;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A truncated or missing file fails every query of its table. It is found by its size, and `repair` mends it
 * exactly: a history file from the store's change log, tables and dead letters by a rebuild from the history.
 */
class RepairTest {
    private static final MirrorConfig NEVER_COMPACTS = MirrorConfig.fromProperties(Map.of(
            "mirror.compaction.files", "0"));

    @TempDir
    Path work;

    private final TestingClock clock = TestingClock.atEpochSecond(1_700_000_000L);
    private EmbeddedStore store;

    @BeforeEach
    void mirrorSomeCommits() {
        store = StoreTesting.openWithClock(work.resolve("store"), clock);
        store.createContainer(ContainerProperties.of("orders", "/pk").withAnalyticalTtl(-1));
        for (int round = 0; round < 4; round++) {
            store.upsertItem("orders", "{\"id\":\"o" + round + "\",\"pk\":\"p" + round % 2 + "\",\"total\":"
                    + round + ".5,\"items\":[{\"sku\":\"s" + round + "\"}]}");
            store.upsertItem("orders", "{\"id\":\"o0\",\"pk\":\"p0\",\"total\":" + (10 + round) + "}");
            sync();
        }
        store.deleteItem("orders", PartitionKey.of("p1"), "o1");
        sync();
    }

    @AfterEach
    void closeStore() {
        store.close();
    }

    @Test
    void aTruncatedTableFileIsFoundAndRebuiltFromTheHistory() throws Exception {
        String damaged = MirrorFiles.dataFiles(mirror(), "orders", "orders").get(1);
        truncate(damaged);

        assertThat(MirrorFiles.latest(mirror(), "orders").damagedFiles()).singleElement().asString()
                .contains(damaged);
        Repair.Result result = repair();

        assertThat(result.damages()).hasSize(1);
        assertThat(result.rebuiltChanges()).isEqualTo(9);
        assertThat(MirrorFiles.latest(mirror(), "orders").damagedFiles()).isEmpty();
        assertExact();
    }

    @Test
    void aMissingHistoryFileIsTakenAgainFromTheChangeLog() throws Exception {
        List<DataFile> history = historyFiles();
        Files.delete(LocalFileIO.pathOf(history.get(1).location()));
        truncate(history.get(2).location());

        Repair.Result result = repair();

        assertThat(result.damages()).hasSize(2);
        assertThat(result.recoveredChanges()).isEqualTo(history.get(1).recordCount() + history.get(2).recordCount());
        assertThat(MirrorFiles.latest(mirror(), "orders").damagedFiles()).isEmpty();
        assertExact();
    }

    @Test
    void aHistoryTheChangeLogNoLongerHoldsIsLeftAsItWasWithTheWayOut() throws Exception {
        DataFile first = historyFiles().get(0);
        truncate(first.location());
        // The store forgets the first changes, as its change log's retention would.
        store.close();
        store = EmbeddedStore.open(work.resolve("store"), StoreConfig.defaults().withSyncWrites(false)
                .withChangeLogRetention(-1, 1), clock, false);
        assertThat(store.trimChangeLog(1000)).isPositive();
        long before = rootSnapshotId();

        assertThatThrownBy(this::repair).hasMessageContaining(first.location())
                .hasMessageContaining("docmirror backfill");
        assertThat(rootSnapshotId()).isEqualTo(before);
    }

    @Test
    void anIntactMirrorIsLeftAlone() {
        long before = rootSnapshotId();
        assertThat(repair().damages()).isEmpty();
        assertThat(rootSnapshotId()).isEqualTo(before);
        assertThat(MirrorFiles.batch(mirror(), "orders")).isEqualTo(5);
    }

    private Repair.Result repair() {
        return new Repair(store, mirror(), MirrorConfig.defaults(), clock).run("orders");
    }

    private void assertExact() {
        ReconcileReport report = new Reconciler(store, mirror(), clock, 5).reconcile("orders");
        assertThat(report.differences()).as("%s", report).isEmpty();
        assertThat(report.exact()).isTrue();
    }

    private static void truncate(String location) throws Exception {
        Path path = LocalFileIO.pathOf(location);
        byte[] bytes = Files.readAllBytes(path);
        Files.write(path, Arrays.copyOf(bytes, bytes.length / 2));
    }

    private void sync() {
        try (FeedMirror mirror = new FeedMirror(store, mirror(), NEVER_COMPACTS, FlattenerConfig::defaults, clock)) {
            mirror.sync();
        }
    }

    /** The history's data files, oldest changes first (one file per batch, as nothing compacts). */
    private List<DataFile> historyFiles() {
        List<DataFile> files = MirrorFiles.liveFiles(mirror(), "orders", "orders_history").stream()
                .sorted(Comparator.comparingLong(ContainerTables::lowestLsn)).toList();
        assertThat(files).hasSize(5);
        return files;
    }

    /** The mirror's newest commit: a repair that changes nothing commits nothing. */
    private long rootSnapshotId() {
        var snapshot = MirrorFiles.latest(mirror(), "orders").rootSnapshot();
        assertThat(snapshot.summary()).containsKey(MirrorSummary.BATCH);
        return snapshot.snapshotId();
    }

    private Path mirror() {
        return work.resolve("mirror");
    }
}
