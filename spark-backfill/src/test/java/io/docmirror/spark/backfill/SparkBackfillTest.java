package io.docmirror.spark.backfill;

import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.layout.ContainerSnapshot;
import io.docmirror.mirror.Backfill;
import io.docmirror.mirror.FeedMirror;
import io.docmirror.mirror.MirrorConfig;
import io.docmirror.mirror.MirrorFiles;
import io.docmirror.mirror.MixedDocuments;
import io.docmirror.mirror.SameTables;
import io.docmirror.mirror.reconcile.ReconcileReport;
import io.docmirror.mirror.reconcile.Reconciler;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.PartitionKey;
import io.docmirror.store.StoreConfig;
import io.docmirror.store.StoreTesting;
import io.docmirror.store.TestingClock;
import io.docmirror.store.changelog.ChangeEvent;
import io.docmirror.store.server.StoreHttpServer;
import org.apache.spark.SparkConf;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.JavaSparkContext;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Spark backfill in local mode ({@code local[2]}, each feed range cut into several parts) against the store over
 * HTTP: it makes exactly the tables a single-machine backfill makes of the same container, hands over to the change
 * feed with no gap and no duplicate while writes go on, and a task that fails is retried without a duplicate row or
 * a file left behind.
 */
class SparkBackfillTest {
    private static final String CONTAINER = "docs";
    /** Old snapshots and orphans go at once: what a run leaves behind is seen. */
    private static final MirrorConfig CONFIG = MirrorConfig.fromProperties(Map.of("mirror.compaction.files", "0",
            "mirror.snapshots.keep-ms", "0"));
    private static final FlattenerConfig FLATTENER = FlattenerConfig.defaults(CONTAINER);

    /** Two task threads, and each task tried twice before the job fails. */
    private static JavaSparkContext spark;

    @TempDir
    Path work;

    private final TestingClock clock = TestingClock.atEpochSecond(1_700_000_000L);
    private EmbeddedStore store;
    private StoreHttpServer server;
    private StoreAddress address;
    private long documents;

    @BeforeAll
    static void startSpark() {
        spark = new JavaSparkContext(new SparkConf().setMaster("local[2,2]").setAppName("SparkBackfillTest")
                .set("spark.ui.enabled", "false"));
    }

    @AfterAll
    static void stopSpark() {
        spark.close();
    }

    @BeforeEach
    void serveStore() throws Exception {
        store = StoreTesting.openWithClock(work.resolve("store"), clock);
        store.createContainer(ContainerProperties.of(CONTAINER, "/pk").withAnalyticalTtl(-1).withLogPartitions(4));
        documents = MixedDocuments.write(store, CONTAINER);
        server = StoreHttpServer.start(store, StoreConfig.defaults().withHttp("127.0.0.1", 0));
        address = new StoreAddress(server.baseUri().toString(), null);
    }

    @AfterEach
    void stopStore() {
        server.close();
        store.close();
    }

    @Test
    void theSparkBackfillMakesTheTablesOfTheSingleMachineBackfill() throws Exception {
        Path single = work.resolve("single");
        new Backfill(store, single, CONFIG, FLATTENER, clock).run(CONTAINER, Backfill.Listener.NONE);

        Path onSpark = work.resolve("spark");
        SparkBackfill.Result result = backfill(onSpark).run(address, CONTAINER, 3);

        System.out.println("Spark backfill: " + result);
        assertThat(result.documents()).isEqualTo(documents);
        assertThat(result.parts()).as("more parts than feed ranges").isGreaterThan(4);
        assertThat(result.rangeLsns()).containsOnlyKeys(0, 1, 2, 3);
        SameTables.assertSame(onSpark, single, CONTAINER);
        assertThat(strayFiles(onSpark)).isEmpty();
    }

    @Test
    void writesDuringTheBackfillReachTheMirrorOnceThroughTheChangeFeed() throws Exception {
        AtomicBoolean backfilling = new AtomicBoolean(true);
        AtomicInteger written = new AtomicInteger();
        Thread writer = new Thread(() -> {
            // New documents, updates of backfilled ones, and deletes, for as long as the job runs.
            for (int round = 0; backfilling.get() && round < 3000; round++) {
                store.upsertItem(CONTAINER, "{\"id\":\"during-" + round + "\",\"pk\":\"p" + round % 7
                        + "\",\"round\":" + round + "}");
                store.upsertItem(CONTAINER, "{\"id\":\"price-" + (documents - 8 + round % 7) + "\",\"pk\":\"p"
                        + (documents - 8 + round % 7) % 11 + "\",\"price\":" + round + ".5}");
                if (round % 5 == 0) {
                    store.deleteItem(CONTAINER, PartitionKey.of("p" + round % 7), "during-" + round);
                }
                written.incrementAndGet();
            }
        });
        writer.start();
        Path onSpark = work.resolve("spark");
        try {
            backfill(onSpark).run(address, CONTAINER, 2);
        } finally {
            backfilling.set(false);
            writer.join();
        }
        System.out.println("Rounds of writes during the Spark backfill: " + written.get());
        assertThat(written.get()).isPositive();

        try (FeedMirror daemon = new FeedMirror(store, onSpark, CONFIG, FlattenerConfig::defaults, clock)) {
            daemon.sync();
        }
        ReconcileReport report = new Reconciler(store, onSpark, clock, 5).reconcile(CONTAINER);
        assertThat(report.differences()).as(report.toString()).isEmpty();
        assertThat(report.exact()).isTrue();
    }

    @Test
    void aTaskThatFailsIsRetriedAndLeavesNoDuplicateAndNoFile() throws Exception {
        Path single = work.resolve("single");
        new Backfill(store, single, CONFIG, FLATTENER, clock).run(CONTAINER, Backfill.Listener.NONE);

        Path onSpark = work.resolve("spark");
        SparkBackfill.Result result = backfill(onSpark).run(address, CONTAINER, 2, FailingFirstAttempts::new);

        assertThat(result.documents()).isEqualTo(documents);
        SameTables.assertSame(onSpark, single, CONTAINER);
        assertThat(strayFiles(onSpark)).isEmpty();
    }

    @Test
    void aDriverKilledBeforeItsCommitLeavesNothingVisibleAndARunAgainCleansUpAndSucceeds() throws Exception {
        Path onSpark = work.resolve("spark");
        Path marker = work.resolve("stalled");
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-Xmx1g"));
        command.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .filter(argument -> argument.startsWith("--add-opens") || argument.startsWith("-Djdk.reflect"))
                .toList());
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), StalledBackfillWorker.class.getName(),
                address.uri(), CONTAINER, onSpark.toString(), marker.toString()));
        Process driver = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(work.resolve("driver.log").toFile()).start();
        try {
            Instant deadline = Instant.now().plus(Duration.ofMinutes(3));
            while (!Files.exists(marker) && driver.isAlive() && Instant.now().isBefore(deadline)) {
                Thread.sleep(100);
            }
            assertThat(Files.exists(marker)).as("the driver's write stage stalled; its log: %s",
                    Files.readString(work.resolve("driver.log"))).isTrue();
            // The other parts' files are written meanwhile, and stay: the kill leaves them.
            long deadlineForFiles = System.nanoTime() + Duration.ofMinutes(1).toNanos();
            while (MirrorFiles.parquetFiles(onSpark, CONTAINER).isEmpty() && System.nanoTime() < deadlineForFiles) {
                Thread.sleep(100);
            }
            System.out.println("Files of the stalled backfill: " + MirrorFiles.parquetFiles(onSpark, CONTAINER).size());
            assertThat(MirrorFiles.parquetFiles(onSpark, CONTAINER)).isNotEmpty();
        } finally {
            driver.destroyForcibly().waitFor();
        }
        assertThat(ContainerSnapshot.read(onSpark, CONTAINER)).as("the killed backfill's tables").isEmpty();

        Path single = work.resolve("single");
        new Backfill(store, single, CONFIG, FLATTENER, clock).run(CONTAINER, Backfill.Listener.NONE);
        backfill(onSpark).run(address, CONTAINER, 3);
        SameTables.assertSame(onSpark, single, CONTAINER);
        assertThat(strayFiles(onSpark)).as("files the killed driver's tasks wrote").isEmpty();
    }

    private SparkBackfill backfill(Path mirror) {
        return new SparkBackfill(spark, mirror, CONFIG, FLATTENER, clock);
    }

    /** Parquet files under the container's folder that no snapshot of its tables lists. */
    private static Set<String> strayFiles(Path mirror) {
        Set<String> stray = new HashSet<>(MirrorFiles.parquetFiles(mirror, CONTAINER));
        stray.removeAll(MirrorFiles.listed(mirror, CONTAINER));
        assertThat(ContainerSnapshot.read(mirror, CONTAINER)).isPresent();
        return stray;
    }

    /** The first attempt of each task fails half way through its part, after it handed over half the documents. */
    private static final class FailingFirstAttempts implements ContainerParts {
        private final ContainerParts parts;

        FailingFirstAttempts(ContainerParts parts) {
            this.parts = parts;
        }

        @Override
        public int count() {
            return parts.count();
        }

        @Override
        public void read(int part, Consumer<ChangeEvent> documents) {
            if (TaskContext.get().attemptNumber() > 0) {
                parts.read(part, documents);
                return;
            }
            AtomicInteger handed = new AtomicInteger();
            parts.read(part, document -> {
                if (handed.incrementAndGet() > 20) {
                    throw new IllegalStateException("A task's first attempt fails (the test's fault) in part " + part);
                }
                documents.accept(document);
            });
        }
    }
}
