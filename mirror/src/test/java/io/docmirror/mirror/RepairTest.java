package io.docmirror.mirror;

import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.mirror.manifest.DataFile;
import io.docmirror.mirror.manifest.Manifest;
import io.docmirror.mirror.reconcile.ReconcileReport;
import io.docmirror.mirror.reconcile.Reconciler;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.PartitionKey;
import io.docmirror.store.StoreConfig;
import io.docmirror.store.StoreTesting;
import io.docmirror.store.TestingClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
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
            "mirror.compaction.delta-files", "0"));

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
        DataFile damaged = latest().root().files().get(1);
        truncate(damaged);

        assertThat(DamagedFiles.bySize(directory(), latest())).extracting(DamagedFiles.Damage::file)
                .containsExactly(damaged);
        Repair.Result result = repair();

        assertThat(result.damages()).hasSize(1);
        assertThat(result.rebuiltChanges()).isEqualTo(9);
        assertThat(DamagedFiles.inDepth(directory(), latest())).isEmpty();
        assertExact();
    }

    @Test
    void aMissingHistoryFileIsTakenAgainFromTheChangeLog() throws Exception {
        List<DataFile> history = latest().history();
        Files.delete(directory().resolve(history.get(1).path()));
        truncate(history.get(2));

        Repair.Result result = repair();

        assertThat(result.damages()).hasSize(2);
        assertThat(result.recoveredChanges()).isEqualTo(history.get(1).rows() + history.get(2).rows());
        assertThat(DamagedFiles.inDepth(directory(), latest())).isEmpty();
        assertExact();
    }

    @Test
    void aHistoryTheChangeLogNoLongerHoldsIsLeftAsItWasWithTheWayOut() throws Exception {
        DataFile first = latest().history().get(0);
        truncate(first);
        // The store forgets the first changes, as its change log's retention would.
        store.close();
        store = EmbeddedStore.open(work.resolve("store"), StoreConfig.defaults().withSyncWrites(false)
                .withChangeLogRetention(-1, 1), clock, false);
        assertThat(store.trimChangeLog(1000)).isPositive();
        Manifest before = latest();

        assertThatThrownBy(this::repair).hasMessageContaining(first.path()).hasMessageContaining("docmirror backfill");
        assertThat(latest()).isEqualTo(before);
    }

    @Test
    void anIntactMirrorIsLeftAlone() {
        Manifest before = latest();
        assertThat(repair().damages()).isEmpty();
        assertThat(latest()).isEqualTo(before);
    }

    private Repair.Result repair() {
        return new Repair(store, work.resolve("mirror"), MirrorConfig.defaults(), clock).run("orders");
    }

    private void assertExact() {
        ReconcileReport report = new Reconciler(store, work.resolve("mirror"), clock, 5).reconcile("orders");
        assertThat(report.differences()).as("%s", report).isEmpty();
        assertThat(report.exact()).isTrue();
    }

    private void truncate(DataFile file) throws Exception {
        Path path = directory().resolve(file.path());
        byte[] bytes = Files.readAllBytes(path);
        Files.write(path, Arrays.copyOf(bytes, bytes.length / 2));
    }

    private void sync() {
        try (FeedMirror mirror = new FeedMirror(store, work.resolve("mirror"), NEVER_COMPACTS,
                FlattenerConfig::defaults, clock)) {
            mirror.sync();
        }
    }

    private Path directory() {
        return MirrorLayout.containerDirectory(work.resolve("mirror"), "orders");
    }

    private Manifest latest() {
        return MirrorFiles.latest(work.resolve("mirror"), "orders");
    }
}
