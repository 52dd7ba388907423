package io.docmirror.mirror.iceberg;

import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.layout.CatalogConnection;
import io.docmirror.layout.CatalogOptions;
import io.docmirror.layout.ContainerSnapshot;
import io.docmirror.layout.MirrorCatalog;
import io.docmirror.layout.MirrorLayout;
import io.docmirror.layout.MirrorSummary;
import io.docmirror.layout.MirrorTables;
import io.docmirror.layout.ObjectStoreOptions;
import io.docmirror.layout.ReaderLeases;
import io.docmirror.mirror.MirrorConfig;
import io.docmirror.s3fixture.S3ProxyServer;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.PartitionKey;
import io.docmirror.store.StoreTesting;
import io.docmirror.store.TestingClock;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The mirror's tables in an S3-compatible object store (S3Proxy, started in a JVM of its own), written through
 * Iceberg's S3FileIO with the embedded SQLite catalog: after updates, deletes, a widened column, a compaction and
 * restarts, Iceberg's own reader returns exactly the store's current documents; a crash's leftover object is removed
 * once old enough and no reader holds a lease; docmirror's own readers refuse the tables and say why.
 */
@Tag("slow")
class ObjectStoreWarehouseTest {
    private static final ContainerProperties ORDERS = ContainerProperties.of("orders", "/customerId")
            .withAnalyticalTtl(-1);
    private static final String BUCKET = "lake";

    @TempDir
    Path work;
    private final TestingClock clock = TestingClock.atEpochSecond(1_700_000_000L);
    private S3ProxyServer server;
    private EmbeddedStore store;
    private MirrorConfig config;
    private Path mirror;

    @BeforeEach
    void start() throws Exception {
        server = S3ProxyServer.start(work.resolve("s3"), BUCKET);
        store = StoreTesting.openWithClock(work.resolve("store"), clock);
        store.createContainer(ORDERS);
        mirror = work.resolve("mirror");
        config = MirrorConfig.defaults().withCompaction(2, Duration.ofMinutes(1)).withCatalog(new CatalogOptions(
                "sqlite", "", "s3://" + BUCKET + "/docmirror", "", "", new ObjectStoreOptions(server.endpoint(),
                        S3ProxyServer.REGION, true, S3ProxyServer.ACCESS_KEY_ID, S3ProxyServer.SECRET_ACCESS_KEY)));
    }

    @AfterEach
    void stop() {
        store.close();
        server.close();
    }

    @Test
    void mirrorsIntoTheObjectStoreAndReadsBackExactly() throws Exception {
        store.createItem("orders", """
                {"id":"o1","customerId":"c1","total":10,"items":[{"sku":"A"},{"sku":"B"}]}""");
        store.createItem("orders", """
                {"id":"o2","customerId":"c2","total":9007199254740993,"items":[{"sku":"C"}]}""");
        sync();
        // A widening (BIGINT to DECIMAL), an update and a delete (deletion vectors), a new document.
        store.upsertItem("orders", """
                {"id":"o1","customerId":"c1","total":10.25,"items":[{"sku":"B"}]}""");
        store.deleteItem("orders", PartitionKey.of("c2"), "o2");
        store.createItem("orders", """
                {"id":"o3","customerId":"c1","total":3,"items":[]}""");
        sync();
        store.upsertItem("orders", """
                {"id":"o3","customerId":"c1","total":4,"items":[{"sku":"D"}]}""");
        sync();
        try (ContainerTables tables = open()) {
            assertThat(tables.compact()).isTrue();
        }

        try (CatalogConnection catalog = MirrorCatalog.open(config.catalog().settings(mirror))) {
            Table orders = catalog.catalog().loadTable(TableIdentifier.of("orders", "orders"));
            assertThat(orders.location()).isEqualTo("s3://" + BUCKET + "/docmirror/orders/orders");
            assertThat(IcebergRows.read(orders, "id", "total")).containsExactlyInAnyOrder(
                    List.of("o1", new BigDecimal("10.25")), List.of("o3", new BigDecimal("4.00")));
            assertThat(IcebergRows.read(catalog.catalog().loadTable(TableIdentifier.of("orders", "orders__items")),
                    "_id", "sku")).containsExactlyInAnyOrder(List.of("o1", "B"), List.of("o3", "D"));
            assertThat(IcebergRows.read(catalog.catalog().loadTable(TableIdentifier.of("orders",
                    "orders_history")), "id")).hasSize(6);
            assertThat(orders.currentSnapshot().summary()).containsEntry(MirrorSummary.COMMIT_KIND, "compaction");
        }
        // Every file is in the bucket, none on the mirror's disk.
        assertThat(filesUnder(server.objectFile(BUCKET, "docmirror/orders/orders/data"))).isNotEmpty();
        assertThat(mirror.resolve("warehouse")).doesNotExist();
    }

    @Test
    void removesWhatACrashLeftOnceOldAndNoReaderHoldsALease() throws Exception {
        store.createItem("orders", """
                {"id":"o1","customerId":"c1","total":10,"items":[]}""");
        sync();
        String stray = "s3://" + BUCKET + "/docmirror/orders/orders/data/00000-killed-batch.parquet";
        try (FileIO io = MirrorCatalog.openFileIO(config.catalog().settings(mirror))) {
            OutputFile file = io.newOutputFile(stray);
            try (PositionOutputStream out = file.create()) {
                out.write(new byte[] {'P', 'A', 'R', '1'});
            }

            upkeep();
            assertThat(io.newInputFile(stray).exists()).as("younger than keep-ms").isTrue();

            // The blob store keeps each object as a file: its time is the object's Last-Modified.
            Files.setLastModifiedTime(server.objectFile(BUCKET, "docmirror/orders/orders/data/00000-killed-batch"
                    + ".parquet"), FileTime.from(Instant.now().minus(Duration.ofMinutes(5))));
            try (ReaderLeases.Lease lease = new ReaderLeases(MirrorLayout.containerDirectory(mirror, "orders"))
                    .take(2)) {
                upkeep();
                assertThat(io.newInputFile(stray).exists()).as("a reader holds a lease").isTrue();
            }

            upkeep();
            assertThat(io.newInputFile(stray).exists()).as("old, and no lease").isFalse();
        }
        try (CatalogConnection catalog = MirrorCatalog.open(config.catalog().settings(mirror))) {
            assertThat(IcebergRows.read(catalog.catalog().loadTable(TableIdentifier.of("orders", "orders")), "id"))
                    .containsExactly(List.of("o1"));
        }
    }

    @Test
    void takesNoFolderForAnOrphan() {
        store.createItem("orders", """
                {"id":"o1","customerId":"c1","total":10,"items":[{"sku":"A"}]}""");
        sync();
        // S3Proxy lists each folder as a key ending in "/"; every file is a table's, however young.
        try (CatalogConnection catalog = MirrorCatalog.open(config.catalog().settings(mirror));
                FileIO io = MirrorCatalog.openFileIO(config.catalog().settings(mirror))) {
            List<Table> tables = catalog.catalog().listTables(MirrorTables.namespace("orders")).stream()
                    .map(catalog.catalog()::loadTable).toList();
            assertThat(OrphanFiles.remove(io, MirrorTables.containerLocation("s3://" + BUCKET + "/docmirror",
                    "orders"), tables, Long.MAX_VALUE)).isZero();
        }
        try (CatalogConnection catalog = MirrorCatalog.open(config.catalog().settings(mirror))) {
            assertThat(IcebergRows.read(catalog.catalog().loadTable(TableIdentifier.of("orders", "orders__items")),
                    "sku")).containsExactly(List.of("A"));
        }
    }

    @Test
    void docmirrorsOwnReadersRefuseTheObjectStoreAndSayWhy() {
        store.createItem("orders", """
                {"id":"o1","customerId":"c1","total":10,"items":[]}""");
        sync();

        assertThatThrownBy(() -> ContainerSnapshot.read(mirror, "orders"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("Cannot read the mirror's table orders.orders: its warehouse is in an object "
                        + "store (its metadata is at s3://" + BUCKET + "/docmirror/orders/orders/metadata/")
                .hasMessageEndingWith("and this reader was not given the object store's options "
                        + "(mirror.catalog.warehouse and mirror.catalog.s3.* in the config file)");
    }

    /** Opens the mirror (a restart each time), reads every change after its checkpoint and commits one batch. */
    private void sync() {
        FeedSync.sync(store, ORDERS, mirror, FlattenerConfig.defaults("orders"), config, clock);
    }

    /** Opens the tables and runs their first upkeep, which looks for orphan files, as the daemon's does. */
    private void upkeep() {
        try (ContainerTables tables = open()) {
            tables.maintain();
        }
    }

    private ContainerTables open() {
        return ContainerTables.open(mirror, ORDERS, FlattenerConfig.defaults("orders"), config, clock);
    }

    private static List<Path> filesUnder(Path folder) throws Exception {
        try (Stream<Path> files = Files.walk(folder)) {
            return files.filter(Files::isRegularFile).toList();
        }
    }
}
