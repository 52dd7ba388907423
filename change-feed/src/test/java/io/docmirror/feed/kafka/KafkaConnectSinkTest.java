package io.docmirror.feed.kafka;

import io.docmirror.feed.ChangeFeedMode;
import io.docmirror.feed.ChangeFeedPage;
import io.docmirror.feed.ChangeFeedReader;
import io.docmirror.feed.StartFrom;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.Item;
import io.docmirror.store.PartitionKey;
import io.docmirror.store.StoreConfig;
import io.docmirror.store.StoreTesting;
import io.docmirror.store.changelog.ChangeEvent;
import io.docmirror.store.changelog.Operation;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The published events as Kafka Connect sees them: a real standalone worker (Maven Central's connect-runtime) against
 * the real broker, with Connect's own JsonConverter and FileStreamSink, and Debezium's ExtractNewRecordState. The
 * documents carry numbers no long or double holds; every sink line must hold them as the store has them.
 *
 * <p>The topics have one partition, so the sink's lines come in the order of the change feed and a tombstone's line
 * can be matched to its delete.
 */
@Tag("slow")
class KafkaConnectSinkTest {
    private static final Duration SINK_TIMEOUT = Duration.ofSeconds(120);

    @TempDir
    static Path directory;

    static KafkaBroker broker;
    static EmbeddedStore store;
    static KafkaConnectWorker worker;
    /** The changes in the order the publisher read them. */
    static List<ChangeEvent> changes;

    @BeforeAll
    static void publishAndStartTheWorker() throws Exception {
        broker = KafkaBroker.start(directory.resolve("kafka"));
        store = EmbeddedStore.open(directory.resolve("store"), StoreConfig.defaults().withSyncWrites(false));
        store.createContainer(ContainerProperties.of("orders", "/customer"));
        write(store);
        new KafkaChangePublisher(store, "orders", topics("plain.")).publishAvailable();
        new KafkaChangePublisher(store, "orders", topics("schemas.").withConnectSchemas(true)).publishAvailable();
        changes = changeFeed(store);

        Map<String, String> unwrapped = new HashMap<>(sink("schemas.orders", true, "unwrapped.txt"));
        unwrapped.put("transforms", "unwrap");
        unwrapped.put("transforms.unwrap.type", "io.debezium.transforms.ExtractNewRecordState");
        worker = KafkaConnectWorker.start(directory.resolve("connect"), broker.bootstrapServers(), Map.of(
                "plain", sink("plain.orders", false, "plain.txt"),
                "envelope", sink("schemas.orders", true, "envelope.txt"),
                "unwrapped", unwrapped));
    }

    @AfterAll
    static void stop() throws Exception {
        if (worker != null) {
            worker.close();
        }
        store.close();
        broker.close();
    }

    @Test
    void withoutSchemasTheFileSinkHoldsEveryChangeExactlyAndATombstoneAfterEachDelete() throws Exception {
        assertEveryChangeIn(worker.awaitLines(directory.resolve("plain.txt"), expectedEnvelopeLines(),
                SINK_TIMEOUT));
    }

    @Test
    void withSchemasTheFileSinkHoldsEveryChangeExactlyAndATombstoneAfterEachDelete() throws Exception {
        assertEveryChangeIn(worker.awaitLines(directory.resolve("envelope.txt"), expectedEnvelopeLines(),
                SINK_TIMEOUT));
    }

    @Test
    void throughDebeziumsExtractNewRecordStateTheSinkEndsWithTheStoresDocuments() throws Exception {
        List<String> lines = worker.awaitLines(directory.resolve("unwrapped.txt"), changes.size(), SINK_TIMEOUT);

        // Each create and update is its document's JSON as stored, in the struct the transform unwrapped; a delete
        // is one null (the tombstone).
        assertThat(lines).hasSize(changes.size());
        Map<String, String> documents = new HashMap<>();
        for (int index = 0; index < changes.size(); index++) {
            ChangeEvent change = changes.get(index);
            String line = lines.get(index);
            if (change.operation() == Operation.DELETE) {
                assertThat(line).as("line %d, the delete of %s", index, change.id()).isEqualTo("null");
                documents.remove(change.id());
            } else {
                String document = json(change.documentJson());
                assertThat(line).as("line %d, %s", index, change).isEqualTo("Struct{document=" + document + "}");
                documents.put(change.id(), document);
            }
        }
        Map<String, String> current = new HashMap<>();
        for (Item item : StoreTesting.allItems(store, "orders")) {
            current.put(item.id(), item.json());
        }
        assertThat(documents).as("the sink's documents, each the last line of its id").isEqualTo(current);
        assertThat(String.join("\n", lines)).contains("9223372036854775809",
                "0.1000000000000000055511151231257827");
    }

    /** Each change is a line holding its exact documents and op, each delete followed by a tombstone's line. */
    private static void assertEveryChangeIn(List<String> lines) {
        assertThat(lines).hasSize(expectedEnvelopeLines());
        int index = 0;
        for (ChangeEvent change : changes) {
            String line = lines.get(index++);
            assertThat(line).as("line %d, %s", index, change)
                    .contains("op=" + ChangeEnvelope.operationCode(change.operation()), "lsn=" + change.lsn(), "id=" + change.id());
            assertHolds(line, "after", change.documentJson());
            assertHolds(line, "before", change.previousJson());
            if (change.operation() == Operation.DELETE) {
                assertThat(lines.get(index++)).as("the tombstone after the delete of %s", change.id())
                        .isEqualTo("null");
            }
        }
        String all = String.join("\n", lines);
        assertThat(all).contains("\"big\":9223372036854775809", "\"tiny\":0.1000000000000000055511151231257827")
                .doesNotContain("-9223372036854775807", "\"tiny\":0.1,");
    }

    /**
     * An image the sink printed, {@code field={document=<its JSON>}} (a map, without schemas) or
     * {@code field=Struct{document=<its JSON>}}, or none where the change has none.
     */
    private static void assertHolds(String line, String field, Optional<byte[]> document) {
        if (document.isPresent()) {
            String image = "{document=" + json(document) + "}";
            assertThat(line).containsAnyOf(field + "=" + image, field + "=Struct" + image);
        } else {
            assertThat(line).doesNotContain(field + "={", field + "=Struct{");
        }
    }

    private static int expectedEnvelopeLines() {
        return changes.size() + (int) changes.stream().filter(change -> change.operation() == Operation.DELETE)
                .count();
    }

    /**
     * Creates, updates, deletes and a re-creation, with integers beyond 64 bits and decimals beyond a double; one
     * item's partition key is a number beyond 64 bits too.
     */
    private static void write(EmbeddedStore store) {
        for (int index = 0; index < 40; index++) {
            int item = index % 12;
            store.upsertItem("orders", "{\"id\":\"o" + item + "\",\"customer\":\"c" + (item % 4) + "\",\"v\":"
                    + index + ",\"big\":" + (index == 0 ? "9223372036854775809" : "1" + "0".repeat(20 + index))
                    + ",\"tiny\":0.1000000000000000055511151231257827,\"nested\":{\"list\":[1,2.50,-0,1E+2]}}");
        }
        store.upsertItem("orders", "{\"id\":\"huge\",\"customer\":123456789012345678901234567890,\"v\":1}");
        store.deleteItem("orders", PartitionKey.of("c1"), "o1");
        store.deleteItem("orders", PartitionKey.of("c2"), "o2");
        store.deleteItem("orders", PartitionKey.of("c3"), "o11");
        store.upsertItem("orders", "{\"id\":\"o2\",\"customer\":\"c2\",\"v\":\"again\",\"big\":18446744073709551617}");
    }

    private static KafkaBridgeConfig topics(String prefix) {
        return KafkaBridgeConfig.fromProperties(Map.of("kafka.bootstrap-servers", broker.bootstrapServers(),
                "kafka.topic-prefix", prefix, "kafka.offsets-topic", prefix + "offsets",
                "kafka.topic-partitions", "1"));
    }

    private static Map<String, String> sink(String topic, boolean schemas, String file) {
        return Map.of(
                "connector.class", "org.apache.kafka.connect.file.FileStreamSinkConnector",
                "tasks.max", "1",
                "topics", topic,
                "file", directory.resolve(file).toString(),
                // A connector's converter settings apply only where it names its converters itself.
                "key.converter", "org.apache.kafka.connect.json.JsonConverter",
                "value.converter", "org.apache.kafka.connect.json.JsonConverter",
                "key.converter.schemas.enable", String.valueOf(schemas),
                "value.converter.schemas.enable", String.valueOf(schemas));
    }

    private static List<ChangeEvent> changeFeed(EmbeddedStore store) {
        ChangeFeedReader reader = ChangeFeedReader.open(store, "orders", ChangeFeedMode.ALL_VERSIONS_AND_DELETES,
                StartFrom.beginning());
        List<ChangeEvent> events = new ArrayList<>();
        ChangeFeedPage page;
        do {
            page = reader.readNext(1000);
            events.addAll(page.events());
        } while (!page.caughtUp());
        return events;
    }

    private static String json(Optional<byte[]> document) {
        return new String(document.orElseThrow(), StandardCharsets.UTF_8);
    }
}
