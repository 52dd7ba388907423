package io.docmirror.feed.kafka;

import io.docmirror.store.changelog.ChangeEvent;
import io.docmirror.store.changelog.ChangeEventJson;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

import static java.util.Objects.requireNonNull;

/**
 * What a mirror worker reads when the store's changes come through Kafka: a container's topic, in a consumer group
 * (workers share the partitions), {@code read_committed} (only what the publisher's transactions committed), and
 * without committing offsets itself. Each {@link Batch} says where every partition goes on after it, so that the
 * caller can store those offsets atomically with its own output (the mirror keeps them in its manifest); when a
 * partition is assigned, the reader starts it from the caller's stored offset. Not thread-safe.
 */
public final class KafkaChangeFeedReader implements AutoCloseable {
    /** The caller's stored position of a partition: the offset of the first record it has not applied. */
    @FunctionalInterface
    public interface OffsetSource {
        OptionalLong storedOffset(TopicPartition partition);
    }

    /**
     * @param nextOffsets per partition in the batch, the offset to resume from once the batch is applied
     */
    public record Batch(List<ChangeEvent> events, Map<TopicPartition, Long> nextOffsets) {
        public Batch {
            events = List.copyOf(events);
            nextOffsets = Map.copyOf(nextOffsets);
        }
    }

    private final KafkaConsumer<byte[], byte[]> consumer;

    public KafkaChangeFeedReader(KafkaBridgeConfig config, String container, String groupId, OffsetSource offsets) {
        requireNonNull(offsets, "offsets is null");
        consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG, groupId,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"),
                new ByteArrayDeserializer(), new ByteArrayDeserializer());
        consumer.subscribe(List.of(config.topic(container)), new ConsumerRebalanceListener() {
            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                for (TopicPartition partition : partitions) {
                    offsets.storedOffset(partition).ifPresent(offset -> consumer.seek(partition, offset));
                }
            }

            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                // Nothing to flush: the caller stores offsets with its output, batch by batch.
            }
        });
    }

    /** The next committed changes, waiting at most {@code timeout} for some. */
    public Batch poll(Duration timeout) {
        List<ChangeEvent> events = new ArrayList<>();
        Map<TopicPartition, Long> nextOffsets = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> record : consumer.poll(timeout)) {
            events.add(ChangeEventJson.fromJson(record.value()));
            nextOffsets.put(new TopicPartition(record.topic(), record.partition()), record.offset() + 1);
        }
        return new Batch(events, nextOffsets);
    }

    /** Commits offsets to the consumer group, for callers that keep no offsets of their own. */
    public void commit(Map<TopicPartition, Long> offsets) {
        Map<TopicPartition, OffsetAndMetadata> commits = new HashMap<>();
        offsets.forEach((partition, offset) -> commits.put(partition, new OffsetAndMetadata(offset)));
        consumer.commitSync(commits);
    }

    @Override
    public void close() {
        consumer.close();
    }
}
