package io.docmirror.spark.backfill;

import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.layout.CatalogOptions;
import io.docmirror.layout.CatalogSettings;
import io.docmirror.layout.ObjectStoreOptions;
import io.docmirror.mirror.Backfill;
import io.docmirror.mirror.ContainerStatus;
import io.docmirror.mirror.FeedMirror;
import io.docmirror.mirror.ListedFiles;
import io.docmirror.mirror.MirrorConfig;
import io.docmirror.mirror.MixedDocuments;
import io.docmirror.mirror.SameTables;
import io.docmirror.mirror.reconcile.ReconcileReport;
import io.docmirror.mirror.reconcile.Reconciler;
import io.docmirror.restfixture.RestCatalogServer;
import io.docmirror.s3fixture.S3ProxyServer;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.PartitionKey;
import io.docmirror.store.StoreConfig;
import io.docmirror.store.StoreTesting;
import io.docmirror.store.TestingClock;
import io.docmirror.store.server.StoreHttpServer;
import org.apache.spark.SparkConf;
import org.apache.spark.api.java.JavaSparkContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Spark backfill into a mirror whose catalog is a real Iceberg REST catalog service and whose warehouse is a
 * bucket of a real S3-compatible server (S3Proxy), each in a JVM of its own: the executors write the data files into
 * the bucket through the tables' S3FileIO, the driver commits every table through the service, and the tables are
 * the ones a single-machine backfill makes; {@code status} shows the backfill, and the change feed streams on from it
 * as it does from the single-machine backfill.
 */
@Tag("slow")
class SparkBackfillObjectStoreTest {
    private static final String CONTAINER = "docs";
    private static final String BUCKET = "lake";
    private static final String WAREHOUSE = "s3://" + BUCKET + "/docmirror";
    private static final MirrorConfig LOCAL = MirrorConfig.fromProperties(Map.of("mirror.compaction.files", "0",
            "mirror.snapshots.keep-ms", "0"));
    private static final FlattenerConfig FLATTENER = FlattenerConfig.defaults(CONTAINER);

    @TempDir
    Path work;

    private final TestingClock clock = TestingClock.atEpochSecond(1_700_000_000L);
    private S3ProxyServer s3;
    private RestCatalogServer catalog;
    private EmbeddedStore store;
    private StoreHttpServer server;
    private long documents;

    @BeforeEach
    void start() throws Exception {
        s3 = S3ProxyServer.start(work.resolve("s3"), BUCKET);
        store = StoreTesting.openWithClock(work.resolve("store"), clock);
        store.createContainer(ContainerProperties.of(CONTAINER, "/pk").withAnalyticalTtl(-1).withLogPartitions(4));
        documents = MixedDocuments.write(store, CONTAINER);
        server = StoreHttpServer.start(store, StoreConfig.defaults().withHttp("127.0.0.1", 0));
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
        if (store != null) {
            store.close();
        }
        if (catalog != null) {
            catalog.close();
        }
        if (s3 != null) {
            s3.close();
        }
    }

    @Test
    void theSparkBackfillCommitsThroughARestCatalogIntoABucket() throws Exception {
        ObjectStoreOptions bucket = new ObjectStoreOptions(s3.endpoint(), S3ProxyServer.REGION, true,
                S3ProxyServer.ACCESS_KEY_ID, S3ProxyServer.SECRET_ACCESS_KEY);
        // The service writes each commit's metadata file into the bucket itself, through the same FileIO.
        Map<String, String> fileIo = new CatalogOptions("sqlite", "", WAREHOUSE, "", "", bucket)
                .settings(work.resolve("unused")).properties();
        catalog = RestCatalogServer.startOnWarehouse(work.resolve("rest"), WAREHOUSE, fileIo);
        MirrorConfig config = LOCAL.withCatalog(new CatalogOptions("rest", catalog.uri(), WAREHOUSE, "", "",
                bucket));
        Path mirror = work.resolve("spark");
        CatalogSettings settings = config.catalog().settings(mirror);

        SparkBackfill.Result result;
        try (JavaSparkContext spark = new JavaSparkContext(new SparkConf().setMaster("local[2,2]")
                .setAppName("SparkBackfillObjectStoreTest").set("spark.ui.enabled", "false"))) {
            result = new SparkBackfill(spark, mirror, config, FLATTENER, clock)
                    .run(new StoreAddress(server.baseUri().toString(), null), CONTAINER, 3);
        }
        System.out.println("Spark backfill into " + WAREHOUSE + " through " + catalog.uri() + ": " + result);
        assertThat(result.documents()).isEqualTo(documents);

        Path single = work.resolve("single");
        new Backfill(store, single, LOCAL, FLATTENER, clock).run(CONTAINER, Backfill.Listener.NONE);
        SameTables.assertSame(settings, CatalogSettings.embedded(single), CONTAINER);

        Set<String> listed = ListedFiles.of(settings, CONTAINER);
        assertThat(listed).isNotEmpty().allSatisfy(file -> assertThat(file).startsWith(WAREHOUSE + "/"));
        assertThat(listed).allSatisfy(file -> assertThat(s3.objectFile(BUCKET, key(file))).isRegularFile());
        assertThat(parquetObjects()).as("every data file in the bucket is a table's").isEqualTo(listed.stream()
                .filter(file -> file.endsWith(".parquet")).collect(Collectors.toSet()));
        assertThat(mirror.resolve("warehouse")).as("no table file on the driver's disk").doesNotExist();

        ContainerStatus status = ContainerStatus.ofMirroredContainers(settings, store, clock).get(0);
        assertThat("batch " + status.batch()).as("%s", status).isEqualTo(result.position());
        Map<Integer, Long> feedPositions = new TreeMap<>();
        status.lag().forEach(lag -> feedPositions.put(lag.feedRange().logPartition(), lag.checkpointLsn()));
        assertThat(feedPositions).as("%s", status).isEqualTo(result.rangeLsns());
        assertThat(status.lagEvents()).isZero();
        assertThat(status.damagedFiles()).isEmpty();

        // The change feed goes on from the snapshot: new documents, an update and a delete.
        store.upsertItem(CONTAINER, "{\"id\":\"after-1\",\"pk\":\"p1\",\"n\":1}");
        store.upsertItem(CONTAINER, "{\"id\":\"after-2\",\"pk\":\"p2\",\"n\":2}");
        store.upsertItem(CONTAINER, "{\"id\":\"after-1\",\"pk\":\"p1\",\"n\":3}");
        store.deleteItem(CONTAINER, PartitionKey.of("p2"), "after-2");
        sync(mirror, config);
        sync(single, LOCAL);
        // Reconcile reads local warehouses only (its DuckDB scan): the single-machine mirror, reconciled exact, stands
        // in for the store.
        ReconcileReport report = new Reconciler(store, single, clock, 5).reconcile(CONTAINER);
        assertThat(report.exact()).as(report.toString()).isTrue();
        SameTables.assertSame(settings, CatalogSettings.embedded(single), CONTAINER);
        assertThat(ContainerStatus.ofMirroredContainers(settings, store, clock).get(0).lagEvents()).isZero();
    }

    private void sync(Path mirror, MirrorConfig config) {
        try (FeedMirror daemon = new FeedMirror(store, mirror, config, FlattenerConfig::defaults, clock)) {
            daemon.sync();
        }
        System.out.println("Synced " + mirror);
    }

    /** The Parquet objects under the warehouse, as {@code s3://} locations. */
    private Set<String> parquetObjects() throws IOException {
        Path bucketDirectory = s3.objectFile(BUCKET, "");
        try (Stream<Path> objects = Files.walk(s3.objectFile(BUCKET, key(WAREHOUSE)))) {
            return objects.filter(Files::isRegularFile).filter(file -> file.toString().endsWith(".parquet"))
                    .map(file -> "s3://" + BUCKET + "/" + bucketDirectory.relativize(file).toString()
                            .replace(file.getFileSystem().getSeparator(), "/"))
                    .collect(Collectors.toSet());
        }
    }

    /** The object key of an {@code s3://} location in the bucket. */
    private static String key(String location) {
        return location.substring(("s3://" + BUCKET + "/").length());
    }
}
