package io.docmirror.mirror;

import io.docmirror.feed.kafka.KafkaBridgeConfig;
import io.docmirror.feed.kafka.KafkaBroker;
import io.docmirror.feed.kafka.KafkaChangePublisher;
import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.layout.MirrorLayout;
import io.docmirror.mirror.source.KafkaTopicSource;
import io.docmirror.store.ChildProcesses;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.StoreConfig;
import io.docmirror.store.StoreTesting;
import io.docmirror.store.changelog.ChangeEvent;
import io.docmirror.store.server.StoreHttpServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The mirror reading its changes from Kafka, against a real broker: exactly once through SIGKILLs of the daemon (its
 * Kafka offsets commit in the tables' snapshot with the data), and a switch to Kafka after a backfill with no change lost or
 * applied twice.
 */
@Tag("slow")
class KafkaMirrorCrashTest {
    private static final int TRIALS = 6;

    @TempDir
    static Path directory;

    static KafkaBroker broker;

    @BeforeAll
    static void startBroker() throws Exception {
        broker = KafkaBroker.start(directory.resolve("kafka"));
    }

    @AfterAll
    static void stopBroker() throws Exception {
        broker.close();
    }

    /** The bridge's settings with topics of their own, so that each run of a test reads only its own changes. */
    static KafkaBridgeConfig topics(String bootstrapServers, String prefix) {
        return KafkaBridgeConfig.fromProperties(Map.of("kafka.bootstrap-servers", bootstrapServers,
                "kafka.topic-prefix", prefix, "kafka.offsets-topic", prefix + "offsets"));
    }

    @Test
    void theMirrorEqualsTheStoreAfterEveryKill() throws Exception {
        Path data = directory.resolve("killed");
        Path mirrorDirectory = MirrorLayout.mirrorDirectory(data);
        String prefix = "killed.";
        KafkaBridgeConfig kafka = topics(broker.bootstrapServers(), prefix);
        try (EmbeddedStore store = EmbeddedStore.open(data.resolve("store"),
                StoreConfig.defaults().withSyncWrites(false));
             StoreHttpServer server = StoreHttpServer.start(store, StoreConfig.defaults().withHttp("127.0.0.1", 0))) {
            store.createContainer(ContainerProperties.of("orders", "/customerId").withAnalyticalTtl(-1));
            Random random = new Random(20261123);
            for (int trial = 0; trial < TRIALS; trial++) {
                AtomicBoolean writing = new AtomicBoolean(true);
                Random writes = new Random(random.nextLong());
                Thread writer = new Thread(() -> {
                    for (int count = 0; writing.get(); count++) {
                        MirrorCrashWorker.writeOne(store, writes);
                        if (count % 5 == 0) {
                            // About 2,000 changes a second: the daemon commits many small batches meanwhile.
                            sleep(1);
                        }
                    }
                }, "writer");
                KafkaChangePublisher publisher = new KafkaChangePublisher(store, "orders", kafka);
                Thread publishing = new Thread(() -> {
                    try {
                        publisher.run();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }, "publisher");
                writer.start();
                publishing.start();
                Process daemon = ChildProcesses.startJava(KafkaMirrorWorker.class.getName(), "running",
                        server.baseUri(), broker.bootstrapServers(), mirrorDirectory.toString(), prefix);
                Thread.sleep(1000 + random.nextInt(2500));
                ChildProcesses.sigkill(daemon);
                writing.set(false);
                writer.join();
                publisher.close();
                publishing.join();

                new KafkaChangePublisher(store, "orders", kafka).publishAvailable();
                // Every change reaches the history once, so a mirror the kill left empty replays the feed rather than
                // loading a snapshot (which keeps one history entry per document).
                try (FeedMirror mirror = new FeedMirror(store, KafkaTopicSource.opener(kafka), mirrorDirectory,
                        MirrorConfig.defaults().withSnapshotLoadAbove(-1), FlattenerConfig::defaults,
                        Clock.systemUTC())) {
                    mirror.sync();
                }
                MirrorCrashTest.assertMirrorEqualsStore(store, mirrorDirectory,
                        StoreTesting.changeLog(store, "orders").size(), "trial " + trial);
            }
        }
    }

    @Test
    void aMirrorSwitchingToKafkaAfterABackfillSkipsWhatItHolds() throws Exception {
        Path data = directory.resolve("switched");
        Path mirrorDirectory = MirrorLayout.mirrorDirectory(data);
        // Its own topics: the whole history of the container, published from the beginning of its change feed.
        String prefix = "switched.";
        KafkaBridgeConfig kafka = new KafkaBridgeConfig(broker.bootstrapServers(), prefix, 3, prefix + "offsets",
                100, Duration.ofMillis(50), false);
        try (EmbeddedStore store = EmbeddedStore.open(data.resolve("store"),
                StoreConfig.defaults().withSyncWrites(false))) {
            ContainerProperties orders = store.createContainer(
                    ContainerProperties.of("orders", "/customerId").withAnalyticalTtl(-1));
            Random writes = new Random(11);
            for (int count = 0; count < 3000; count++) {
                MirrorCrashWorker.writeOne(store, writes);
            }
            Backfill.Result backfill = new Backfill(store, mirrorDirectory, MirrorConfig.defaults(),
                    FlattenerConfig.defaults("orders"), Clock.systemUTC()).run("orders", Backfill.Listener.NONE);
            for (int count = 0; count < 2000; count++) {
                MirrorCrashWorker.writeOne(store, writes);
            }
            new KafkaChangePublisher(store, "orders", kafka).publishAvailable();

            try (FeedMirror mirror = new FeedMirror(store, KafkaTopicSource.opener(kafka), mirrorDirectory,
                    MirrorConfig.defaults().withBatch(500, Duration.ofSeconds(1)),
                    FlattenerConfig::defaults,
                    Clock.systemUTC())) {
                mirror.sync();
            }
            long changesAfterTheSnapshot = StoreTesting.changeLog(store, "orders").stream()
                    .filter(event -> event.lsn() > backfill.rangeLsns().get(feedRange(orders, event)))
                    .count();
            assertThat(changesAfterTheSnapshot).isGreaterThan(1000);
            MirrorCrashTest.assertMirrorEqualsStore(store, mirrorDirectory,
                    backfill.items() + changesAfterTheSnapshot, "after the switch to Kafka");

            // Its continuation is where it switched to Kafka: reading the store's feed from there would apply the
            // Kafka changes twice, so the store's feed is refused.
            try (FeedMirror embedded = new FeedMirror(store, mirrorDirectory, MirrorConfig.defaults(),
                    FlattenerConfig::defaults, Clock.systemUTC())) {
                assertThatThrownBy(embedded::sync)
                        .isInstanceOfSatisfying(MirrorException.class,
                                failure -> assertThat(failure.code()).isEqualTo(MirrorErrorCode.REFUSED_CONFIGURATION))
                        .hasMessageStartingWith("Cannot mirror container orders from the store's change feed: its "
                                + "mirror reads from Kafka (its checkpoint holds Kafka offsets {" + prefix
                                + "orders-0=")
                        .hasMessageEndingWith("run the mirror with --source kafka, or run `docmirror backfill "
                                + "--container orders` to start it again from the store");
            }
        }
    }

    private static int feedRange(ContainerProperties container, ChangeEvent event) {
        return container.logPartitionOf(event.partitionKey().toPartitionKey());
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
