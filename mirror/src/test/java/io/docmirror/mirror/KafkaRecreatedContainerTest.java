package io.docmirror.mirror;

import io.docmirror.feed.kafka.KafkaBridgeConfig;
import io.docmirror.feed.kafka.KafkaBroker;
import io.docmirror.feed.kafka.KafkaPublishers;
import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.mirror.reconcile.Reconciler;
import io.docmirror.mirror.source.KafkaTopicSource;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.StoreTesting;
import io.docmirror.store.TestingClock;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A container deleted and created again while its changes go through Kafka: the topic keeps the old container's
 * changes, and the new container's LSNs start again from 1. The publisher must publish the new container from its
 * first change (it used to go on from the old one's positions, or die with the old container and never start again),
 * and the daemon must mirror only the new container's changes from the topic.
 */
@Tag("slow")
class KafkaRecreatedContainerTest {
    @TempDir
    Path work;

    @Test
    void aContainerRecreatedWhileItsChangesGoThroughKafkaIsMirroredFromItsFirstChange() throws Exception {
        TestingClock clock = TestingClock.atEpochSecond(1_700_000_000L);
        try (KafkaBroker broker = KafkaBroker.start(work.resolve("kafka"));
                EmbeddedStore store = StoreTesting.openWithClock(work.resolve("store"), clock)) {
            KafkaBridgeConfig kafka = KafkaBridgeConfig.fromProperties(java.util.Map.of(
                    "kafka.bootstrap-servers", broker.bootstrapServers()));
            store.createContainer(ContainerProperties.of("events", "/pk").withAnalyticalTtl(-1));
            for (int index = 0; index < 4; index++) {
                store.createItem("events", "{\"id\":\"old" + index + "\",\"pk\":\"p\",\"n\":" + index + "}");
            }
            Path mirrorDirectory = work.resolve("mirror");
            try (KafkaPublishers publishers = KafkaPublishers.start(store, kafka, Duration.ofMillis(200))) {
                FeedMirror daemon = new FeedMirror(store, KafkaTopicSource.opener(kafka), mirrorDirectory,
                        MirrorConfig.defaults(), FlattenerConfig::defaults, Clock.systemUTC());
                Thread thread = FeedMirrorTest.runInBackground(daemon);
                try {
                    StoreTesting.await("the old container mirrored", Duration.ofSeconds(90),
                            () -> RecreatedContainerTest.ids(mirrorDirectory),
                            List.of("old0", "old1", "old2", "old3")::equals);

                    store.deleteContainer("events");
                    store.createContainer(ContainerProperties.of("events", "/pk").withAnalyticalTtl(-1));
                    // Six changes: LSNs 1 to 4 are at or below the old container's positions, 5 and 6 beyond them.
                    for (int index = 0; index < 6; index++) {
                        store.createItem("events", "{\"id\":\"new" + index + "\",\"pk\":\"p\",\"s\":\"x" + index
                                + "\"}");
                    }
                    List<String> seen = StoreTesting.await("exactly the new container's documents mirrored",
                            Duration.ofSeconds(90), () -> RecreatedContainerTest.ids(mirrorDirectory),
                            List.of("new0", "new1", "new2", "new3", "new4", "new5")::equals);
                    System.out.println("mirrored from Kafka after the container was created again: " + seen
                            + "; publishers: " + publishers.activity());
                } finally {
                    FeedMirrorTest.stop(daemon, thread);
                }
            }
            assertThat(new Reconciler(store, mirrorDirectory, clock, 5).reconcile("events").exact())
                    .as("the mirror against the new container").isTrue();
        }
    }
}
