package io.docmirror.feed.kafka;

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
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

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
