package io.docmirror.mirror.reconcile;

import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.mirror.FeedMirror;
import io.docmirror.mirror.MirrorConfig;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.PartitionKey;
import io.docmirror.store.StoreTesting;
import io.docmirror.store.TestingClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A reconcile compares every value of every current document, and every change the store's log still holds, with
 * what the mirror serves. It must find a mirror exact when it is, at the mirror's own position even while the store
 * moves on, and name the document and the path when it is not.
 */
class ReconcileTest {
    private static final MirrorConfig COMPACTS = MirrorConfig.fromProperties(Map.of(
            "mirror.compaction.files", "2"));

    @TempDir
    Path work;

    private final TestingClock clock = TestingClock.atEpochSecond(1_700_000_000L);
    private final List<EmbeddedStore> stores = new ArrayList<>();

    @AfterEach
    void closeStores() {
        stores.forEach(EmbeddedStore::close);
    }

    @Test
    void aMirrorIsExactAtItsPositionWhileTheStoreMovesOn() {
        EmbeddedStore store = store("store");
        writeOrders(store, "7.25");
        sync(store);
        assertExact(reconcile(store));

        // Changes the mirror has not read yet: compared as they were at the mirror's position.
        store.upsertItem("orders", "{\"id\":\"o1\",\"pk\":\"a\",\"total\":1e400,\"items\":[]}");
        store.deleteItem("orders", PartitionKey.of("b"), "o2");
        store.createItem("orders", "{\"id\":\"o9\",\"pk\":\"c\",\"total\":-0.0}");
        assertExact(reconcile(store));

        sync(store);
        ReconcileReport report = reconcile(store);
        assertExact(report);
        assertThat(report.feedRanges()).allSatisfy(range -> {
            assertThat(range.mirror()).isEqualTo(range.store());
            assertThat(range.mirrorChanges()).isEqualTo(range.storeChanges());
        });
        assertThat(report.feedRanges().stream().mapToLong(range -> range.store().count()).sum()).isEqualTo(3);
        assertThat(report.feedRanges().stream().mapToLong(range -> range.storeChanges().count()).sum()).isEqualTo(7);
    }

    @Test
    void aValueThatDiffersIsNamedWithItsDocumentAndPath() {
        // Two stores given the same changes, but for one value: the same LSNs, one document different.
        EmbeddedStore mirrored = store("mirrored");
        EmbeddedStore other = store("other");
        writeOrders(mirrored, "7.25");
        writeOrders(other, "7.2500000000000000001");
        sync(mirrored);

        ReconcileReport report = new Reconciler(other, work.resolve("mirror"), clock, 10).reconcile("orders");

        assertThat(report.exact()).isFalse();
        assertThat(report.differenceCount()).as("the document and its change in the history: %s", report)
                .isEqualTo(2);
        assertThat(report.differences()).anySatisfy(difference -> {
            assertThat(difference.id()).isEqualTo("o1");
            assertThat(difference.what()).contains("$.items[1].price").contains("7.2500000000000000001");
        });
        assertThat(report.differences()).anySatisfy(difference ->
                assertThat(difference.what()).startsWith("history: the change of LSN"));
    }

    private void writeOrders(EmbeddedStore store, String price) {
        store.createContainer(ContainerProperties.of("orders", "/pk").withAnalyticalTtl(-1));
        store.createItem("orders", "{\"id\":\"o1\",\"pk\":\"a\",\"total\":1,\"items\":[{\"sku\":\"x\",\"price\":1.5},"
                + "{\"sku\":\"y\",\"price\":" + price + "}]}");
        store.createItem("orders", "{\"id\":\"o2\",\"pk\":\"b\",\"total\":2.5,\"tags\":[\"t\",null],"
                + "\"customer\":{\"name\":\"Zoë\",\"address\":{\"city\":\"Lyon\"}}}");
        store.createItem("orders", "{\"id\":\"o3\",\"pk\":\"c\",\"total\":12345678901234567890123,\"n\":null}");
        sync(store);
        store.upsertItem("orders", "{\"id\":\"o3\",\"pk\":\"c\",\"total\":0.1234567890123456789,\"n\":[[1,2],{}]}");
    }

    private EmbeddedStore store(String name) {
        EmbeddedStore store = StoreTesting.openWithClock(work.resolve(name), clock);
        stores.add(store);
        return store;
    }

    /** Mirrors the first store opened; the others are only compared with its mirror. */
    private void sync(EmbeddedStore store) {
        if (stores.indexOf(store) != 0) {
            return;
        }
        try (FeedMirror mirror = new FeedMirror(store, work.resolve("mirror"), COMPACTS, FlattenerConfig::defaults,
                clock)) {
            mirror.sync();
        }
    }

    private ReconcileReport reconcile(EmbeddedStore store) {
        return new Reconciler(store, work.resolve("mirror"), clock, 10).reconcile("orders");
    }

    private static void assertExact(ReconcileReport report) {
        assertThat(report.differences()).as("differences of %s", report).isEmpty();
        assertThat(report.exact()).isTrue();
    }
}
