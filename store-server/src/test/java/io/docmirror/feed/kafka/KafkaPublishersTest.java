package io.docmirror.feed.kafka;

import io.docmirror.feed.FeedErrorCode;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.StoreConfig;
import io.docmirror.store.StoreTesting;
import io.docmirror.store.http.HttpStoreClient;
import io.docmirror.store.server.StoreHttpServer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The publishers of a store reached over HTTP ride out the store's outage: the publisher that died of it is started
 * again once the store answers, and publishes on from its committed checkpoint. It used to stay dead until the
 * process was restarted.
 */
@Tag("slow")
class KafkaPublishersTest {
    @TempDir
    Path work;

    @Test
    void aPublisherThatDiedOfAStoreOutageIsStartedAgainAndPublishesOn() throws Exception {
        try (KafkaBroker broker = KafkaBroker.start(work.resolve("kafka"));
                EmbeddedStore store = EmbeddedStore.open(work.resolve("store"), StoreConfig.defaults())) {
            store.createContainer(ContainerProperties.of("orders", "/c").withAnalyticalTtl(-1));
            store.createItem("orders", "{\"id\":\"o1\",\"c\":\"x\"}");
            StoreHttpServer server = StoreHttpServer.start(store, StoreConfig.defaults().withHttp("127.0.0.1", 0));
            int port = java.net.URI.create(server.baseUri()).getPort();
            KafkaBridgeConfig kafka = KafkaBridgeConfig.fromProperties(Map.of("kafka.bootstrap-servers",
                    broker.bootstrapServers()));
            try (HttpStoreClient client = new HttpStoreClient(server.baseUri(), Optional.empty());
                    KafkaPublishers publishers = KafkaPublishers.start(client, kafka, Duration.ofMillis(200))) {
                awaitInTopic(kafka, List.of("o1"));

                server.close();
                // The publisher's next look at the store fails, and it dies of it.
                Thread.sleep(kafka.pollInterval().toMillis() * 3);
                store.createItem("orders", "{\"id\":\"o2\",\"c\":\"y\"}");
                server = StoreHttpServer.start(store, StoreConfig.defaults().withHttp("127.0.0.1", port));

                awaitInTopic(kafka, List.of("o1", "o2"));
                System.out.println("after the outage: " + publishers.activity());
            } finally {
                server.close();
            }
        }
    }

    @Test
    void aPublisherWhoseFeedPositionIsLostStaysStoppedWhileLaterContainersArePublished() throws Exception {
        try (KafkaBroker broker = KafkaBroker.start(work.resolve("kafka"))) {
            KafkaBridgeConfig kafka = KafkaBridgeConfig.fromProperties(Map.of("kafka.bootstrap-servers",
                    broker.bootstrapServers()));
            try (EmbeddedStore store = EmbeddedStore.open(work.resolve("store"), StoreConfig.defaults())) {
                store.createContainer(ContainerProperties.of("orders", "/c").withAnalyticalTtl(-1)
                        .withLogPartitions(1));
                store.createItem("orders", "{\"id\":\"o1\",\"c\":\"x\"}");
                new KafkaChangePublisher(store, "orders", kafka).publishAvailable();
                for (int order = 2; order <= 20; order++) {
                    store.createItem("orders", "{\"id\":\"o" + order + "\",\"c\":\"x\"}");
                }
            }
            // The log keeps the last 5 changes: the publisher's checkpoint, after o1, is no longer in it.
            try (EmbeddedStore store = EmbeddedStore.open(work.resolve("store"), StoreConfig.defaults()
                    .withChangeLogRetention(-1, 5), Clock.systemUTC(), false)) {
                assertThat(store.trimChangeLog(1000)).isPositive();
                try (KafkaPublishers publishers = KafkaPublishers.start(store, kafka, Duration.ofMillis(100))) {
                    StoreTesting.await("the publisher of orders stopped", Duration.ofSeconds(90),
                            () -> activity(publishers, "orders"),
                            activity -> activity.stoppedBy().equals(Optional.of(FeedErrorCode.POSITION_LOST)));
                    // Containers created after it stopped get publishers at later look-ups, which leave it stopped.
                    for (String later : List.of("later1", "later2")) {
                        store.createContainer(ContainerProperties.of(later, "/c").withAnalyticalTtl(-1));
                        store.createItem(later, "{\"id\":\"l1\",\"c\":\"x\"}");
                        StoreTesting.await(later + " published", Duration.ofSeconds(90),
                                () -> activity(publishers, later), activity -> activity.events() == 1);
                    }

                    System.out.println("after the later containers: " + publishers.activity());
                    assertThat(publishers.started()).as("the publisher of orders, not started again, and one for "
                            + "each later container").isEqualTo(3);
                    assertThat(activity(publishers, "orders").stoppedForGood()).isTrue();
                }
            }
        }
    }

    private static PublisherActivity activity(KafkaPublishers publishers, String container) {
        return publishers.activity().stream().filter(activity -> activity.container().equals(container))
                .findFirst().orElse(new PublisherActivity(container, 0, 0, 0, Optional.empty(), Optional.empty()));
    }

    /** Waits until the container's topic holds the changes of exactly {@code ids}, each once, in this order. */
    private static void awaitInTopic(KafkaBridgeConfig kafka, List<String> ids) throws InterruptedException {
        List<String> read = new ArrayList<>();
        try (KafkaChangeFeedReader reader = new KafkaChangeFeedReader(kafka, "orders", Map.of())) {
            StoreTesting.await("the changes of " + ids + " in the topic", Duration.ofSeconds(90), () -> {
                reader.poll(Duration.ofMillis(200)).forEach(record -> read.add(record.event().id()));
                return List.copyOf(read);
            }, ids::equals);
        }
    }
}
