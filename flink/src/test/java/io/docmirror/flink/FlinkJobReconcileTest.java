package io.docmirror.flink;

import io.docmirror.feed.kafka.KafkaBridgeConfig;
import io.docmirror.feed.kafka.KafkaBroker;
import io.docmirror.feed.kafka.KafkaPublishers;
import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.layout.ContainerSnapshot;
import io.docmirror.mirror.FeedMirror;
import io.docmirror.mirror.MirrorConfig;
import io.docmirror.mirror.MirrorSql;
import io.docmirror.mirror.OrderChanges;
import io.docmirror.mirror.reconcile.ReconcileReport;
import io.docmirror.mirror.reconcile.Reconciler;
import io.docmirror.mirror.source.KafkaTopicSource;
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

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The differential workload through the job: creates, upserts, patches that give one path every type in turn (its
 * column widening from BIGINT to DOUBLE to DECIMAL), deletes and TTL expiries, written to the store, published to
 * Kafka by the store's publisher and mirrored by the job with two writers; after every step {@code reconcile} finds
 * the mirror exact. The container then moves to `mirror run` (its Kafka source) and back to the job.
 */
@Tag("slow")
class FlinkJobReconcileTest {
    private static final String CONTAINER = "orders";
    private static final Duration CATCH_UP = Duration.ofMinutes(3);
    /** Seeded and reproducible; {@code -Ddocmirror.flink.seed=N} runs another seed. */
    private static final long SEED = Long.getLong("docmirror.flink.seed", 20261129L);

    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = MirrorJobs.miniCluster();

    @TempDir
    Path work;

    private final TestingClock clock = TestingClock.atEpochSecond(Instant.now().getEpochSecond());

    @Test
    void everyStepThroughTheJobReconcilesExactlyAndTheContainerMovesToMirrorRunAndBack() throws Exception {
        Path mirror = Files.createDirectories(work.resolve("mirror"));
        try (EmbeddedStore store = EmbeddedStore.open(work.resolve("store"),
                StoreConfig.defaults().withSyncWrites(false), clock, false);
                KafkaBroker broker = KafkaBroker.start(work.resolve("kafka"))) {
            store.createContainer(new ContainerProperties(CONTAINER, "/pk", -1, -1, 4));
            ContainerProperties container = store.readContainer(CONTAINER);
            KafkaBridgeConfig kafka = KafkaBridgeConfig.fromProperties(Map.of(
                    "kafka.bootstrap-servers", broker.bootstrapServers()));
            String topic = kafka.topic(CONTAINER);
            OrderChanges changes = new OrderChanges(store, CONTAINER, clock, new Random(SEED));
            // The first values are whole numbers: the columns start as BIGINT, and widen as the patches come.
            changes.createShaped("1");
            try (KafkaPublishers publishers = KafkaPublishers.start(store, kafka, Duration.ofMillis(200))) {
                JobClient job = MirrorJobs.start(work, broker.bootstrapServers(), topic, container, mirror, 2, null);
                try {
                    for (int step = 0; step < 3; step++) {
                        changes.write(60);
                        awaitExact(store, mirror, changes, "the job, step " + step, () -> { });
                    }
                    try (MirrorSql sql = MirrorSql.open(mirror, CONTAINER)) {
                        assertThat(sql.rows("SELECT DISTINCT typeof(shape) FROM orders").toString())
                                .as("the shape column, widened from BIGINT by the job")
                                .matches("\\[\\[(DOUBLE|DECIMAL\\(\\d+,\\d+\\))]]");
                    }
                } finally {
                    MirrorJobs.stop(job);
                }

                changes.write(40);
                MirrorConfig config = MirrorConfig.defaults().withBatch(17, Duration.ofHours(1));
                try (FeedMirror mirrorRun = new FeedMirror(store, KafkaTopicSource.opener(kafka), mirror, config,
                        FlattenerConfig::defaults, clock)) {
                    awaitExact(store, mirror, changes, "mirror run after the job", mirrorRun::sync);
                }

                changes.write(40);
                JobClient again = MirrorJobs.start(work, broker.bootstrapServers(), topic, container, mirror, 2,
                        null);
                try {
                    awaitExact(store, mirror, changes, "the job after mirror run", () -> { });
                } finally {
                    MirrorJobs.stop(again);
                }
            }
        }
    }

    /**
     * Runs {@code step} until a reconcile finds the mirror exact, holding every order the store holds and every one
     * that expired; fails with the last report after {@link #CATCH_UP}.
     */
    private void awaitExact(EmbeddedStore store, Path mirror, OrderChanges changes, String when, Runnable step)
            throws InterruptedException {
        long deadline = System.nanoTime() + CATCH_UP.toNanos();
        ReconcileReport report = null;
        while (true) {
            step.run();
            if (ContainerSnapshot.read(mirror, CONTAINER).isPresent()) {
                report = new Reconciler(store, mirror, clock, 5).reconcile(CONTAINER);
                long mirrored = report.feedRanges().stream().mapToLong(range -> range.mirror().count()).sum();
                if (report.exact() && mirrored == changes.mirrored()) {
                    System.out.println(when + ": exact, " + mirrored + " orders (seed " + SEED + ")");
                    return;
                }
            }
            if (System.nanoTime() > deadline) {
                assertThat(report).as("%s, seed %d: a reconcile after %s", when, SEED, CATCH_UP).isNotNull();
                assertThat(report.differences()).as("%s, seed %d: %s", when, SEED, report).isEmpty();
                assertThat(report.exact()).as("%s, seed %d: %s", when, SEED, report).isTrue();
                assertThat(report.feedRanges().stream().mapToLong(range -> range.mirror().count()).sum())
                        .as("%s: the mirror's orders, the expired ones kept", when).isEqualTo(changes.mirrored());
            }
            Thread.sleep(300);
        }
    }
}
