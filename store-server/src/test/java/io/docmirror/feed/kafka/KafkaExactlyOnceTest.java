package io.docmirror.feed.kafka;

import io.docmirror.feed.ChangeFeedException;
import io.docmirror.store.ChildProcesses;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.StoreConfig;
import io.docmirror.store.StoreErrorCode;
import io.docmirror.store.StoreTesting;
import io.docmirror.store.changelog.ChangeEvent;
import io.docmirror.store.server.StoreHttpServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The Kafka bridge against a real broker: killed with SIGKILL at random points, or with the broker restarted under
 * it, the publisher still leaves every change in Kafka exactly once for {@code read_committed} consumers.
 */
@Tag("slow")
class KafkaExactlyOnceTest {
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

    @Test
    void aPublisherKilledAtRandomPointsLosesAndDuplicatesNothing() throws Exception {
        try (EmbeddedStore store = EmbeddedStore.open(directory.resolve("store-kill"),
                StoreConfig.defaults().withSyncWrites(false));
                StoreHttpServer server = StoreHttpServer.start(store, StoreConfig.defaults().withHttp("127.0.0.1", 0))) {
            store.createContainer(ContainerProperties.of("killed", "/customer"));
            AtomicBoolean writing = new AtomicBoolean(true);
            AtomicInteger written = new AtomicInteger();
            Thread writer = new Thread(() -> {
                while (writing.get()) {
                    int index = written.getAndIncrement();
                    store.upsertItem("killed", "{\"id\":\"o" + (index % 300) + "\",\"customer\":\"c" + (index % 17)
                            + "\",\"v\":" + index + "}");
                    if (index % 10 == 0) {
                        // About 5,000 changes a second: a steady stream, small enough to check exactly.
                        sleepQuietly(2);
                    }
                }
            });
            writer.start();
            Random random = new Random(7);
            try {
                for (int trial = 0; trial < 10; trial++) {
                    Process publisher = startPublisher(server, "killed");
                    Thread.sleep(500 + random.nextInt(2500));
                    ChildProcesses.sigkill(publisher);
                }
            } finally {
                writing.set(false);
                writer.join();
            }
            new KafkaChangePublisher(store, "killed", KafkaBridgeConfig.defaults(broker.bootstrapServers()))
                    .publishAvailable();

            assertExactlyOnce(store, "killed");
            assertThat(written.get()).isGreaterThan(1000);
        }
    }

    @Test
    void aBrokerRestartMidStreamLosesAndDuplicatesNothing() throws Exception {
        try (EmbeddedStore store = EmbeddedStore.open(directory.resolve("store-restart"),
                StoreConfig.defaults().withSyncWrites(false))) {
            store.createContainer(ContainerProperties.of("restarted", "/customer"));
            KafkaChangePublisher publisher = new KafkaChangePublisher(store, "restarted",
                    KafkaBridgeConfig.defaults(broker.bootstrapServers()));
            Thread publishing = new Thread(() -> {
                try {
                    publisher.run();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            publishing.start();
            write(store, "restarted", 0, 500);
            Thread.sleep(1000);
            broker.restart();
            write(store, "restarted", 500, 1000);
            long expected = StoreTesting.changeLog(store, "restarted").size();
            long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
            while (consume("restarted").size() < expected && System.nanoTime() < deadline) {
                Thread.sleep(500);
            }
            publisher.close();
            publishing.join(30_000);

            assertExactlyOnce(store, "restarted");
        }
    }

    @Test
    void aReaderResumesFromTheOffsetsItsCallerStored() throws Exception {
        try (EmbeddedStore store = EmbeddedStore.open(directory.resolve("store-reader"),
                StoreConfig.defaults().withSyncWrites(false))) {
            store.createContainer(ContainerProperties.of("read", "/customer"));
            KafkaBridgeConfig config = KafkaBridgeConfig.defaults(broker.bootstrapServers());
            try (KafkaChangeFeedReader early = new KafkaChangeFeedReader(config, "read", Map.of())) {
                assertThat(early.poll(Duration.ofMillis(100))).as("nothing before the topic exists").isEmpty();
                assertThat(early.caughtUp()).isTrue();
            }
            write(store, "read", 0, 300);
            new KafkaChangePublisher(store, "read", config).publishAvailable();

            Map<TopicPartition, Long> stored = new HashMap<>();
            List<String> applied = new ArrayList<>();
            try (KafkaChangeFeedReader first = new KafkaChangeFeedReader(config, "read", Map.of())) {
                while (applied.size() < 100) {
                    for (KafkaChangeFeedReader.Record record : first.poll(Duration.ofSeconds(1))) {
                        applied.add(key(record.event()));
                        stored.put(record.partition(), record.offset() + 1);
                    }
                }
            }
            write(store, "read", 300, 400);
            new KafkaChangePublisher(store, "read", config).publishAvailable();
            try (KafkaChangeFeedReader second = new KafkaChangeFeedReader(config, "read", stored)) {
                while (!second.caughtUp()) {
                    second.poll(Duration.ofSeconds(1)).forEach(record -> applied.add(key(record.event())));
                }
            }
            List<String> expected = new ArrayList<>();
            StoreTesting.changeLog(store, "read").forEach(event -> expected.add(key(event)));
            Collections.sort(expected);
            Collections.sort(applied);
            assertThat(applied).as("applied exactly once across the two readers").isEqualTo(expected);
        }
    }

    @Test
    void aReaderRefusesToSkipRecordsThatRetentionRemoved() throws Exception {
        try (EmbeddedStore store = EmbeddedStore.open(directory.resolve("store-trimmed"),
                StoreConfig.defaults().withSyncWrites(false))) {
            store.createContainer(ContainerProperties.of("trimmed", "/customer"));
            KafkaBridgeConfig config = KafkaBridgeConfig.defaults(broker.bootstrapServers());
            write(store, "trimmed", 0, 100);
            new KafkaChangePublisher(store, "trimmed", config).publishAvailable();
            TopicPartition first = new TopicPartition(config.topic("trimmed"), 0);
            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                    broker.bootstrapServers()))) {
                admin.deleteRecords(Map.of(first, RecordsToDelete.beforeOffset(5))).all().get();
            }

            try (KafkaChangeFeedReader fromBeginning = new KafkaChangeFeedReader(config, "trimmed", Map.of())) {
                assertThatThrownBy(() -> fromBeginning.poll(Duration.ofSeconds(1)))
                        .isInstanceOf(ChangeFeedException.class)
                        .hasMessageContaining("Cannot read Kafka topic docmirror.trimmed from its beginning: "
                                + "partition 0 starts at offset 5, retention has removed the records before it.");
            }
            try (KafkaChangeFeedReader fromGoneOffset = new KafkaChangeFeedReader(config, "trimmed",
                    Map.of(first, 2L))) {
                assertThatThrownBy(() -> {
                    while (true) {
                        fromGoneOffset.poll(Duration.ofMillis(200));
                    }
                }).isInstanceOf(ChangeFeedException.class)
                        .hasMessageContaining("Cannot read Kafka topic docmirror.trimmed from offsets")
                        .hasMessageContaining("retention has removed those records")
                        .satisfies(e -> assertThat(((ChangeFeedException) e).code()).isEqualTo(StoreErrorCode.GONE));
            }
        }
    }

    private static String key(ChangeEvent event) {
        return event.partitionKey() + "/" + event.id() + "/" + event.lsn();
    }

    private static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void write(EmbeddedStore store, String container, int from, int to) {
        for (int index = from; index < to; index++) {
            store.upsertItem(container, "{\"id\":\"o" + (index % 200) + "\",\"customer\":\"c" + (index % 13)
                    + "\",\"v\":" + index + "}");
        }
    }

    /** Every change of the store's log appears in the topic exactly once, in LSN order per item. */
    private static void assertExactlyOnce(EmbeddedStore store, String container) {
        List<String> expected = new ArrayList<>();
        for (ChangeEvent event : StoreTesting.changeLog(store, container)) {
            expected.add(event.partitionKey() + "/" + event.id() + "/" + event.lsn());
        }
        List<String> published = consume(container);
        java.util.Collections.sort(expected);
        java.util.Collections.sort(published);
        assertThat(new java.util.HashSet<>(published)).as("distinct changes in Kafka").hasSameSizeAs(published);
        assertThat(published).as("changes in Kafka, sorted").isEqualTo(expected);
    }

    /** Reads the whole topic as a read_committed consumer: "partitionKey/id/lsn" per record. */
    private static List<String> consume(String container) {
        String topic = KafkaBridgeConfig.defaults(broker.bootstrapServers()).topic(container);
        List<String> records = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"),
                new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = new ArrayList<>();
            for (PartitionInfo info : consumer.partitionsFor(topic)) {
                partitions.add(new TopicPartition(topic, info.partition()));
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
            while (partitions.stream().anyMatch(partition -> consumer.position(partition) < ends.get(partition))) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(500))) {
                    if (record.value() != null) {
                        ChangeEvent event = ChangeEnvelope.fromValue(record.value());
                        records.add(event.partitionKey() + "/" + event.id() + "/" + event.lsn());
                    }
                }
            }
        }
        return records;
    }

    private static Process startPublisher(StoreHttpServer server, String container) throws Exception {
        return ChildProcesses.startJava(PublisherProcess.class.getName(), "started", server.baseUri(),
                broker.bootstrapServers(), container);
    }

}
