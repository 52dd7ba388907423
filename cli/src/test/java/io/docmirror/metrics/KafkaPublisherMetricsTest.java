package io.docmirror.metrics;

import io.docmirror.feed.kafka.KafkaBridgeConfig;
import io.docmirror.feed.kafka.KafkaBroker;
import io.docmirror.feed.kafka.KafkaPublishers;
import io.docmirror.feed.kafka.PublisherActivity;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.StoreConfig;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Kafka publishers' metrics ({@code store serve --publish-kafka --metrics-port}) against a real broker: what was
 * published, in how many transactions, and how far behind the store the publishers are.
 */
@Tag("slow")
class KafkaPublisherMetricsTest {
    @TempDir
    Path dir;

    @Test
    void countEventsAndTransactionsAndShowTheLagOfWhatIsNotPublishedYet() throws Exception {
        try (KafkaBroker broker = KafkaBroker.start(dir.resolve("kafka"));
                EmbeddedStore store = EmbeddedStore.open(dir.resolve("store"),
                        StoreConfig.defaults().withSyncWrites(false))) {
            store.createContainer(ContainerProperties.of("orders", "/c").withAnalyticalTtl(-1));
            for (int order = 0; order < 25; order++) {
                store.createItem("orders", "{\"id\":\"o" + order + "\",\"c\":\"c" + order % 4 + "\"}");
            }
            KafkaPublishers publishers = KafkaPublishers.start(store, KafkaBridgeConfig.defaults(
                    broker.bootstrapServers()));
            KafkaPublisherMetrics metrics = new KafkaPublisherMetrics(publishers, store, Clock.systemUTC());
            try (MetricsServer server = MetricsServer.startIfEnabled(MetricsConfig.defaults().withPort(0),
                    List.of(metrics)).orElseThrow()) {
                awaitPublished(publishers, 25);
                publishers.close();
                // Written after the publishers stopped: the lag the metrics show.
                for (int order = 25; order < 30; order++) {
                    store.createItem("orders", "{\"id\":\"o" + order + "\",\"c\":\"c0\"}");
                }

                String text = Scrape.text(server.metricsUri());

                assertThat(Scrape.sample(text, "docmirror_kafka_publisher_events_total{container=\"orders\"}"))
                        .isEqualTo(25);
                assertThat(Scrape.sample(text, "docmirror_kafka_publisher_transactions_total{container=\"orders\"}"))
                        .isBetween(1.0, 25.0);
                assertThat(Scrape.sample(text, "docmirror_kafka_publisher_failures_total{container=\"orders\"}"))
                        .isZero();
                double behind = 0;
                for (int range = 0; range < store.readContainer("orders").logPartitions(); range++) {
                    behind += Scrape.sample(text, "docmirror_kafka_publisher_lag_events{container=\"orders\","
                            + "feed_range=\"" + range + "\"}");
                }
                assertThat(behind).as("the 5 changes written after the publishers stopped").isEqualTo(5);
            }
        }
    }

    /** Waits (bounded) until the publishers have committed {@code events} changes, and says what it saw. */
    private static void awaitPublished(KafkaPublishers publishers, long events) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        List<PublisherActivity> seen = publishers.activity();
        while (seen.stream().mapToLong(PublisherActivity::events).sum() < events) {
            assertThat(System.nanoTime()).as("%d changes published within 60 s; saw %s", events, seen)
                    .isLessThan(deadline);
            Thread.sleep(50);
            seen = publishers.activity();
        }
        System.out.println("published: " + seen);
    }
}
