package io.docmirror.flink;

import io.docmirror.feed.kafka.KafkaBridgeConfig;
import io.docmirror.feed.kafka.KafkaBroker;
import io.docmirror.feed.kafka.KafkaPublishers;
import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.layout.CatalogOptions;
import io.docmirror.layout.CatalogSettings;
import io.docmirror.layout.ObjectStoreOptions;
import io.docmirror.mirror.ContainerStatus;
import io.docmirror.mirror.FeedMirror;
import io.docmirror.mirror.ListedFiles;
import io.docmirror.mirror.MirrorConfig;
import io.docmirror.mirror.OrderChanges;
import io.docmirror.mirror.SameTables;
import io.docmirror.mirror.reconcile.ReconcileReport;
import io.docmirror.mirror.reconcile.Reconciler;
import io.docmirror.restfixture.RestCatalogServer;
import io.docmirror.s3fixture.S3ProxyServer;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.StoreConfig;
import io.docmirror.store.TestingClock;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The job with two writers on a mirror whose catalog is a real Iceberg REST catalog service and whose warehouse is a
 * bucket of a real S3-compatible server (S3Proxy), each in a JVM of its own: the writers write their files into the
 * bucket, the committer commits every table through the service, and the tables are the ones a single-machine mirror
 * of the same store makes (reconcile reads local warehouses only, so that mirror, reconciled exact, stands in for the
 * store). No table file is on the mirror directory's disk, and {@code status} reads the tables.
 */
@Tag("slow")
class FlinkObjectStoreTest {
    private static final String CONTAINER = "orders";
    private static final String BUCKET = "lake";
    private static final String WAREHOUSE = "s3://" + BUCKET + "/docmirror";
    private static final Duration CATCH_UP = Duration.ofMinutes(3);
    /** Seeded and reproducible; {@code -Ddocmirror.flink.seed=N} runs another seed. */
    private static final long SEED = Long.getLong("docmirror.flink.seed", 20261129L);

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = MirrorJobs.miniCluster();

    @TempDir
    Path work;

    private final TestingClock clock = TestingClock.atEpochSecond(Instant.now().getEpochSecond());

    @Test
    void theJobCommitsThroughARestCatalogIntoABucket() throws Exception {
        Path mirror = Files.createDirectories(work.resolve("mirror"));
        Path single = work.resolve("single");
        try (S3ProxyServer s3 = S3ProxyServer.start(work.resolve("s3"), BUCKET);
                // The service writes each commit's metadata file into the bucket itself, through the same FileIO.
                RestCatalogServer catalog = RestCatalogServer.startOnWarehouse(work.resolve("rest"), WAREHOUSE,
                        CatalogOptions.fromProperties(bucketOptions(s3)).settings(work).properties());
                EmbeddedStore store = EmbeddedStore.open(work.resolve("store"),
                        StoreConfig.defaults().withSyncWrites(false), clock, false);
                KafkaBroker broker = KafkaBroker.start(work.resolve("kafka"))) {
            // The job's --conf: the REST catalog, the bucket and how to reach it.
            Map<String, String> conf = new HashMap<>(bucketOptions(s3));
            conf.put(CatalogOptions.TYPE.key(), "rest");
            conf.put(CatalogOptions.URI.key(), catalog.uri());
            CatalogSettings settings = CatalogOptions.fromProperties(conf).settings(mirror);

            store.createContainer(new ContainerProperties(CONTAINER, "/pk", -1, -1, 4));
            ContainerProperties container = store.readContainer(CONTAINER);
            KafkaBridgeConfig kafka = KafkaBridgeConfig.fromProperties(Map.of(
                    "kafka.bootstrap-servers", broker.bootstrapServers()));
            OrderChanges changes = new OrderChanges(store, CONTAINER, clock, new Random(SEED));
            // The first values are whole numbers: the columns start as BIGINT, and widen as the patches come.
            changes.createShaped("1");
            try (KafkaPublishers publishers = KafkaPublishers.start(store, kafka, Duration.ofMillis(200))) {
                JobClient job = MirrorJobs.start(work, broker.bootstrapServers(), kafka.topic(CONTAINER), container,
                        mirror, 2, null, conf);
                try {
                    // One step: a path's variant columns are named in the order their types come, which two writers
                    // need not keep; this seed's first 50 changes give each path variants of distinct kinds.
                    changes.write(50);
                    syncExact(store, single, changes);
                    awaitSameTables(store, settings, single);
                } finally {
                    MirrorJobs.stop(job);
                }
            }

            Set<String> listed = ListedFiles.of(settings, CONTAINER);
            assertThat(listed).isNotEmpty().allSatisfy(file -> assertThat(file).startsWith(WAREHOUSE + "/"));
            assertThat(listed).as("the tables' files, in the bucket")
                    .allSatisfy(file -> assertThat(s3.objectFile(BUCKET, key(file))).isRegularFile());
            assertThat(listed).as("files of both writers")
                    .anyMatch(file -> file.contains("w0of2")).anyMatch(file -> file.contains("w1of2"));
            List<Path> tableFiles;
            try (Stream<Path> files = Files.walk(mirror)) {
                tableFiles = files.filter(Files::isRegularFile).filter(file -> Stream.of(".parquet", ".puffin",
                        ".avro", ".metadata.json").anyMatch(file.toString()::endsWith)).toList();
            }
            assertThat(tableFiles).as("table files on the mirror directory's disk").isEmpty();

            ContainerStatus status = ContainerStatus.ofMirroredContainers(settings, store, clock).get(0);
            assertThat(status.lagEvents()).as("%s", status).isZero();
            assertThat(status.damagedFiles()).as("%s", status).isEmpty();
            assertThat(status.tables()).as("%s", status).isGreaterThan(1);
        }
    }

    /** The bucket as the warehouse: {@code mirror.catalog.warehouse} and {@code mirror.catalog.s3.*}. */
    private static Map<String, String> bucketOptions(S3ProxyServer s3) {
        return Map.of(CatalogOptions.WAREHOUSE.key(), WAREHOUSE,
                ObjectStoreOptions.ENDPOINT.key(), s3.endpoint(),
                ObjectStoreOptions.REGION.key(), S3ProxyServer.REGION,
                ObjectStoreOptions.PATH_STYLE_ACCESS.key(), "true",
                ObjectStoreOptions.ACCESS_KEY_ID.key(), S3ProxyServer.ACCESS_KEY_ID,
                ObjectStoreOptions.SECRET_ACCESS_KEY.key(), S3ProxyServer.SECRET_ACCESS_KEY);
    }

    /** Brings the single-machine mirror, on local disk, up to the store, and finds it exact. */
    private void syncExact(EmbeddedStore store, Path single, OrderChanges changes) {
        try (FeedMirror daemon = new FeedMirror(store, single, MirrorConfig.defaults(), FlattenerConfig::defaults,
                clock)) {
            daemon.sync();
        }
        ReconcileReport report = new Reconciler(store, single, clock, 5).reconcile(CONTAINER);
        assertThat(report.exact()).as(report.toString()).isTrue();
        assertThat(report.feedRanges().stream().mapToLong(range -> range.mirror().count()).sum())
                .as("the single mirror's orders, the expired ones kept").isEqualTo(changes.mirrored());
    }

    /**
     * Waits until the job's tables have caught up with the store ({@code status}) and hold what the single-machine
     * mirror holds; fails with what it last saw after {@link #CATCH_UP}.
     */
    private void awaitSameTables(EmbeddedStore store, CatalogSettings settings, Path single) throws Exception {
        long deadline = System.nanoTime() + CATCH_UP.toNanos();
        while (true) {
            ContainerStatus status = ContainerStatus.ofMirroredContainers(settings, store, clock).get(0);
            AssertionError difference = null;
            if (status.lagEvents() == 0) {
                try {
                    SameTables.assertSameInAnyOrder(settings, CatalogSettings.embedded(single), CONTAINER);
                    System.out.println("The job's tables in " + WAREHOUSE + " are the single mirror's ("
                            + status + ")");
                    return;
                } catch (AssertionError e) {
                    // A change whose document waits for a schema decision is written after the commit that
                    // decides it: the feed position can be reached one commit before the rows.
                    difference = e;
                }
            }
            if (System.nanoTime() > deadline) {
                assertThat(status.lagEvents()).as("%s after %s", status, CATCH_UP).isZero();
                throw new AssertionError("Seed " + SEED + ": the job's tables after " + CATCH_UP
                        + " are not the single mirror's", difference);
            }
            Thread.sleep(300);
        }
    }

    /** The object key of an {@code s3://} location in the bucket. */
    private static String key(String location) {
        return location.substring(("s3://" + BUCKET + "/").length());
    }
}
