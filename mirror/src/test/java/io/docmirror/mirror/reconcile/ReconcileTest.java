package io.docmirror.mirror.reconcile;

import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.layout.CatalogSettings;
import io.docmirror.mirror.Backfill;
import io.docmirror.mirror.FeedMirror;
import io.docmirror.mirror.MirrorConfig;
import io.docmirror.mirror.reconcile.ReconcileReport.Difference;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.PartitionKey;
import io.docmirror.store.StoreClient;
import io.docmirror.store.StoreTesting;
import io.docmirror.store.TestingClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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

    @Test
    void aNumberPartitionKeyIsComparedAsTheItemSpellsIt() {
        // The store keys 100 by value (1E+2); the mirror's _pk holds the item's own spelling, as the store's side must.
        EmbeddedStore store = store("store");
        store.createContainer(ContainerProperties.of("orders", "/pk").withAnalyticalTtl(-1));
        store.createItem("orders", "{\"id\":\"o1\",\"pk\":100,\"total\":1}");
        store.createItem("orders", "{\"id\":\"o2\",\"pk\":1.10,\"total\":2}");
        store.createItem("orders", "{\"id\":\"o3\",\"pk\":12345678901234567890,\"total\":3}");
        sync(store);
        store.upsertItem("orders", "{\"id\":\"o1\",\"pk\":100,\"total\":4}");

        assertExact(reconcile(store));
        sync(store);
        assertExact(reconcile(store));
    }

    @Test
    void aBackfillWritesANumberPartitionKeyAsTheChangeFeedDoesSoALaterChangeReplacesItsRow() throws Exception {
        // The backfill reads a snapshot of the store, whose keys hold 100 as 1E+2: were it to write that, the
        // change feed's REPLACE of (100, o1) would leave the backfilled row beside its own.
        EmbeddedStore store = store("store");
        store.createContainer(ContainerProperties.of("orders", "/pk").withAnalyticalTtl(-1));
        store.createItem("orders", "{\"id\":\"o1\",\"pk\":100,\"total\":1}");
        store.createItem("orders", "{\"id\":\"o2\",\"pk\":1.10,\"total\":2}");
        new Backfill(store, work.resolve("mirror"), COMPACTS, FlattenerConfig.defaults("orders"), clock)
                .run("orders", Backfill.Listener.NONE);
        store.upsertItem("orders", "{\"id\":\"o1\",\"pk\":100,\"total\":3}");
        store.upsertItem("orders", "{\"id\":\"o2\",\"pk\":1.10,\"total\":4}");
        sync(store);

        assertExact(reconcile(store));
    }

    /**
     * A reconcile keeps what grows with the container on disk, in a directory of its own that goes when it ends:
     * tens of thousands of documents with nested arrays are compared there, and only the differences come back, in
     * the order of their keys, each of them named.
     */
    @Test
    void aLargeContainerIsComparedOnDiskAndEveryDifferenceIsNamed() throws Exception {
        EmbeddedStore mirrored = store("mirrored");
        EmbeddedStore other = store("other");
        for (EmbeddedStore store : List.of(mirrored, other)) {
            store.createContainer(ContainerProperties.of("orders", "/pk").withAnalyticalTtl(-1));
        }
        int orders = 20_000;
        for (int order = 0; order < orders; order++) {
            mirrored.createItem("orders", largeOrder(order, 1));
            other.createItem("orders", largeOrder(order, 1));
        }
        sync(mirrored);
        // At the same LSNs in both: order o1055's second line changes, to another quantity in each store; then the
        // mirrored store replaces o5, and the other creates "extra" in o5's partition.
        long changedLsn = mirrored.upsertItem("orders", largeOrder(1055, 3)).lsn();
        other.upsertItem("orders", largeOrder(1055, 10));
        long lastLsn = mirrored.upsertItem("orders", largeOrder(5, 3)).lsn();
        other.createItem("orders", largeOrder(5, 1).replace("\"o5\"", "\"extra\""));
        long o5Lsn = other.findItem("orders", PartitionKey.of("c5"), "o5").orElseThrow().lsn();
        sync(mirrored);
        Path spill = work.resolve("spill");

        ReconcileReport report = new Reconciler(other, work.resolve("mirror"),
                CatalogSettings.embedded(work.resolve("mirror")), clock, 10, spill).reconcile("orders");

        int range = other.readContainer("orders").logPartitionOf(PartitionKey.of("c5"));
        String partitionKey = "\"c5\"";
        assertThat(report.differences()).containsExactly(
                new Difference(range, partitionKey, "extra", "in the store, missing from the mirror"),
                new Difference(range, partitionKey, "o1055", "$.items[1].qty: the store has 20, the mirror 6"),
                new Difference(range, partitionKey, "o5", "the store has the version of LSN " + o5Lsn
                        + ", the mirror that of LSN " + lastLsn),
                new Difference(range, partitionKey, "o1055", "history: the change of LSN " + changedLsn
                        + " differs from the store's"),
                new Difference(range, partitionKey, "extra", "history: the change of LSN " + lastLsn
                        + " is missing"),
                new Difference(range, partitionKey, "o5", "history: the change of LSN " + lastLsn
                        + " is not in the store's change log"));
        assertThat(report.differenceCount()).isEqualTo(6);
        assertThat(report.feedRanges().stream().mapToLong(feedRange -> feedRange.store().count()).sum())
                .isEqualTo(orders + 1);
        assertThat(report.feedRanges().stream().mapToLong(feedRange -> feedRange.mirror().count()).sum())
                .isEqualTo(orders);
        assertThat(report.feedRanges().stream().mapToLong(feedRange -> feedRange.storeChanges().count()).sum())
                .isEqualTo(orders + 2);
        assertThat(report.feedRanges().stream().mapToLong(feedRange -> feedRange.mirrorChanges().count()).sum())
                .isEqualTo(orders + 2);
        assertThat(report.feedRanges()).filteredOn(feedRange -> feedRange.feedRange() != range)
                .allSatisfy(feedRange -> {
                    assertThat(feedRange.mirror()).isEqualTo(feedRange.store());
                    assertThat(feedRange.mirrorChanges()).isEqualTo(feedRange.storeChanges());
                });
        assertThat(contents(spill)).as("the reconcile's directory, removed").isEmpty();
    }

    @Test
    void itsDirectoryGoesAlsoWhenTheReconcileFails() throws Exception {
        EmbeddedStore store = store("store");
        writeOrders(store, "7.25");
        sync(store);
        // A store that fails once the mirror's side is on disk.
        StoreClient failing = (StoreClient) Proxy.newProxyInstance(StoreClient.class.getClassLoader(),
                new Class<?>[] {StoreClient.class}, (proxy, method, arguments) -> {
                    if (method.getName().equals("scanItems")) {
                        throw new IllegalStateException("the store is gone");
                    }
                    try {
                        return method.invoke(store, arguments);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        Path spill = work.resolve("spill");

        assertThatThrownBy(() -> new Reconciler(failing, work.resolve("mirror"),
                CatalogSettings.embedded(work.resolve("mirror")), clock, 10, spill).reconcile("orders"))
                .hasMessage("the store is gone");

        assertThat(contents(spill)).as("the reconcile's directory, removed").isEmpty();
    }

    /** An order with {@code o % 4} lines, each with tags (a nested array); line 2's quantity times {@code factor}. */
    private static String largeOrder(int order, int factor) {
        StringBuilder lines = new StringBuilder();
        for (int line = 0; line < order % 4; line++) {
            lines.append(line == 0 ? "" : ",").append("{\"sku\":\"s").append((order + line) % 97)
                    .append("\",\"qty\":").append((line + 1) * (line == 1 ? factor : 1))
                    .append(",\"tags\":[\"t").append(line).append("\",").append(order % 5).append("]}");
        }
        return "{\"id\":\"o" + order + "\",\"pk\":\"c" + order % 50 + "\",\"total\":" + order + ".5,"
                + "\"items\":[" + lines + "]}";
    }

    private static List<Path> contents(Path directory) throws IOException {
        try (Stream<Path> files = Files.list(directory)) {
            return files.toList();
        }
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
