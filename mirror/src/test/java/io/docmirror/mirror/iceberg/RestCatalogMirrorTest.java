package io.docmirror.mirror.iceberg;

import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.layout.CatalogConnection;
import io.docmirror.layout.CatalogOptions;
import io.docmirror.layout.CatalogReader;
import io.docmirror.layout.CatalogSettings;
import io.docmirror.layout.MirrorCatalog;
import io.docmirror.layout.MirrorSummary;
import io.docmirror.mirror.ContainerStatus;
import io.docmirror.mirror.MirrorConfig;
import io.docmirror.mirror.reconcile.ReconcileReport;
import io.docmirror.mirror.reconcile.Reconciler;
import io.docmirror.restfixture.RestCatalogServer;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.PartitionKey;
import io.docmirror.store.StoreTesting;
import io.docmirror.store.TestingClock;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The mirror's tables in a real Iceberg REST catalog service (Iceberg's own reference server, started in a JVM of
 * its own): each batch goes to the service as one multi-table commit request, and Iceberg's reader, through the
 * service, returns exactly the store's current documents, after updates, deletes, a widened column and restarts.
 */
class RestCatalogMirrorTest {
    private static final ContainerProperties ORDERS = ContainerProperties.of("orders", "/customerId")
            .withAnalyticalTtl(-1);

    @TempDir
    Path work;
    private final TestingClock clock = TestingClock.atEpochSecond(1_700_000_000L);
    private RestCatalogServer server;
    private EmbeddedStore store;
    private MirrorConfig config;

    @BeforeEach
    void start() throws Exception {
        server = RestCatalogServer.start(work.resolve("rest"));
        store = StoreTesting.openWithClock(work.resolve("store"), clock);
        store.createContainer(ORDERS);
        config = MirrorConfig.defaults().withCatalog(new CatalogOptions("rest", server.uri(), server.warehouse(), "",
                ""));
    }

    @AfterEach
    void stop() {
        store.close();
        server.close();
    }

    @Test
    void batchesCommitThroughTheServiceAndReadBackExactly() {
        store.createItem("orders", """
                {"id":"o1","customerId":"c1","total":10,"items":[{"sku":"A"},{"sku":"B"}]}""");
        store.createItem("orders", """
                {"id":"o2","customerId":"c2","total":9007199254740993,"items":[{"sku":"C"}]}""");
        sync();
        store.upsertItem("orders", """
                {"id":"o1","customerId":"c1","total":10.25,"items":[{"sku":"B"}]}""");
        store.deleteItem("orders", PartitionKey.of("c2"), "o2");
        store.createItem("orders", """
                {"id":"o3","customerId":"c1","total":3,"items":[]}""");
        sync();
        sync();

        try (CatalogConnection catalog = MirrorCatalog.open(config.catalog().settings(work.resolve("mirror")))) {
            Table orders = catalog.catalog().loadTable(TableIdentifier.of("orders", "orders"));
            assertThat(IcebergRows.read(orders, "id", "total")).containsExactlyInAnyOrder(
                    List.of("o1", new BigDecimal("10.25")), List.of("o3", new BigDecimal("3.00")));
            assertThat(IcebergRows.read(catalog.catalog().loadTable(TableIdentifier.of("orders", "orders__items")),
                    "_id", "sku")).containsExactly(List.of("o1", "B"));
            assertThat(IcebergRows.read(catalog.catalog().loadTable(TableIdentifier.of("orders",
                    "orders_history")), "id")).hasSize(5);
            assertThat(orders.currentSnapshot().summary()).containsEntry(MirrorSummary.BATCH, "3")
                    .containsKey(MirrorSummary.CHECKPOINT);
        }
    }

    @Test
    void statusAndReconcileReadTheRestCatalog() {
        store.createItem("orders", """
                {"id":"o1","customerId":"c1","total":10,"items":[{"sku":"A"}]}""");
        store.createItem("orders", """
                {"id":"o2","customerId":"c2","total":2.5,"items":[]}""");
        sync();
        store.deleteItem("orders", PartitionKey.of("c2"), "o2");
        sync();
        store.createItem("orders", """
                {"id":"o3","customerId":"c1","total":3}""");

        CatalogSettings settings = config.catalog().settings(work.resolve("mirror"));
        try (CatalogReader catalog = CatalogReader.open(settings)) {
            ContainerStatus status = ContainerStatus.of(catalog, store, store.readContainer("orders"), clock);
            assertThat(status.batch()).isEqualTo(2);
            assertThat(status.lagEvents()).isEqualTo(1);
        }
        assertThat(ContainerStatus.ofMirroredContainers(settings, store, clock)).extracting(ContainerStatus::batch)
                .containsExactly(2L);
        ReconcileReport report = new Reconciler(store, work.resolve("mirror"), settings, clock, 10)
                .reconcile("orders");
        assertThat(report.exact()).as("%s", report.differences()).isTrue();
        assertThat(report.batch()).isEqualTo(2);
        assertThat(work.resolve("mirror").resolve(CatalogSettings.SQLITE_FILE)).doesNotExist();
    }

    /**
     * A REST catalog's batch creates its new tables before its commit; an abandoned first batch leaves them empty,
     * and the mirror opened again starts from no commit, as from no tables.
     */
    @Test
    void aFirstBatchAbandonedLeavesEmptyTablesThatTheNextOpenTakesForNoMirror() {
        store.createItem("orders", """
                {"id":"o1","customerId":"c1","total":10,"items":[{"sku":"A"}]}""");
        try (ContainerTables tables = ContainerTables.open(work.resolve("mirror"), ORDERS,
                FlattenerConfig.defaults("orders"), config, clock)) {
            ContainerBatch batch = tables.begin();
            StoreTesting.changeLog(store, "orders").forEach(batch::add);
            batch.abort();
        }
        try (CatalogConnection catalog = MirrorCatalog.open(config.catalog().settings(work.resolve("mirror")))) {
            assertThat(catalog.catalog().loadTable(TableIdentifier.of("orders", "orders")).currentSnapshot())
                    .as("the abandoned batch's root table").isNull();
        }

        sync();

        try (CatalogConnection catalog = MirrorCatalog.open(config.catalog().settings(work.resolve("mirror")))) {
            assertThat(IcebergRows.read(catalog.catalog().loadTable(TableIdentifier.of("orders", "orders")), "id"))
                    .containsExactly(List.of("o1"));
        }
    }

    /** Opens the mirror (a restart each time), reads every change after its checkpoint and commits one batch. */
    private void sync() {
        FeedSync.sync(store, ORDERS, work.resolve("mirror"), FlattenerConfig.defaults("orders"), config, clock);
    }
}
