package io.docmirror.bench;

import io.docmirror.demo.OrderGenerator;
import io.docmirror.feed.ChangeFeedMode;
import io.docmirror.feed.ChangeFeedPage;
import io.docmirror.feed.ChangeFeedReader;
import io.docmirror.feed.StartFrom;
import io.docmirror.feed.kafka.ChangeEnvelope;
import io.docmirror.feed.kafka.KafkaBridgeConfig;
import io.docmirror.feed.kafka.KafkaChangePublisher;
import io.docmirror.store.BulkOptions;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.StoreConfig;
import io.docmirror.store.changelog.ChangeEvent;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The Kafka publisher (exactly once: transactions with the feed checkpoint) against a plain kafka-clients producer
 * sending the same change-event bytes with the same keys to the same broker, in the same run.
 * Usage: {@code KafkaPublishBenchmark <events> <bootstrap servers> [workDir]}; start a broker with
 * {@code ./kafka-broker}.
 */
public final class KafkaPublishBenchmark {
    private KafkaPublishBenchmark() {
    }

    public record Result(long events, long bytes, double plainEventsPerSecond, double publisherEventsPerSecond) {
        public double ratio() {
            return publisherEventsPerSecond / plainEventsPerSecond;
        }
    }

    public static void main(String[] args) throws Exception {
        long events = Long.parseLong(args[0]);
        String bootstrap = args[1];
        Path work = args.length > 2 ? Path.of(args[2]) : Files.createTempDirectory("docmirror-kafka-bench");
        run(events, bootstrap, work, System.out);
    }

    public static Result run(long events, String bootstrap, Path work, PrintStream out) throws Exception {
        String container = "bench" + System.nanoTime();
        OrderGenerator generator = new OrderGenerator(42, Math.max(1, (int) (events / 10)));
        try (EmbeddedStore store = EmbeddedStore.open(work.resolve("kafka-bench-store"),
                StoreConfig.defaults().withSyncWrites(false))) {
            store.createContainer(ContainerProperties.of(container, "/customerId"));
            for (long start = 0; start < events; start += 5000) {
                List<byte[]> batch = new ArrayList<>();
                for (long index = start; index < Math.min(events, start + 5000); index++) {
                    batch.add(generator.order(index));
                }
                store.bulkWrite(container, batch, BulkOptions.CREATE);
            }
            // The broker creates no topic on first use: make the reference's topic like the publisher's.
            KafkaBridgeConfig config = KafkaBridgeConfig.defaults(bootstrap);
            ChangeEnvelope envelope = new ChangeEnvelope(config, store.readContainer(container));
            List<byte[]> keys = new ArrayList<>();
            List<byte[]> values = new ArrayList<>();
            ChangeFeedReader reader = ChangeFeedReader.open(store, container, ChangeFeedMode.ALL_VERSIONS_AND_DELETES,
                    StartFrom.beginning());
            ChangeFeedPage page;
            do {
                page = reader.readNext(1000);
                for (ChangeEvent event : page.events()) {
                    keys.add(envelope.key(event));
                    values.add(envelope.value(event, System.currentTimeMillis()));
                }
            } while (!page.caughtUp());
            long bytes = values.stream().mapToLong(value -> value.length).sum();

            String plainTopic = "plain." + container;
            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
                admin.createTopics(List.of(new NewTopic(plainTopic, config.topicPartitions(), (short) -1))).all().get();
            }

            long plainStart = System.nanoTime();
            try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(
                    ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                    ProducerConfig.ACKS_CONFIG, "all",
                    ProducerConfig.LINGER_MS_CONFIG, 5),
                    new ByteArraySerializer(), new ByteArraySerializer())) {
                for (int index = 0; index < values.size(); index++) {
                    producer.send(new ProducerRecord<>(plainTopic, keys.get(index), values.get(index)));
                }
                producer.flush();
            }
            double plainSeconds = (System.nanoTime() - plainStart) / 1e9;

            long publisherStart = System.nanoTime();
            long published = new KafkaChangePublisher(store, container, config)
                    .publishAvailable();
            double publisherSeconds = (System.nanoTime() - publisherStart) / 1e9;
            if (published != events) {
                throw new IllegalStateException("Published " + published + " of " + events + " events");
            }

            Result result = new Result(events, bytes, events / plainSeconds, events / publisherSeconds);
            out.printf(Locale.ROOT, "%,d change events, %,d bytes of JSON%n", events, bytes);
            out.printf(Locale.ROOT, "%-58s %12s %10s%n", "", "events/s", "MB/s");
            out.printf(Locale.ROOT, "%-58s %,12.0f %10.1f%n", "plain kafka-clients producer, acks=all (reference)",
                    result.plainEventsPerSecond(), bytes / 1e6 / plainSeconds);
            out.printf(Locale.ROOT, "%-58s %,12.0f %10.1f%n", "docmirror publisher (feed read + transactions)",
                    result.publisherEventsPerSecond(), bytes / 1e6 / publisherSeconds);
            out.printf(Locale.ROOT, "ratio publisher / plain: %.2f (target >= 0.5)%n", result.ratio());
            return result;
        }
    }
}
