package io.docmirror.feed.kafka;

import io.docmirror.feed.ChangeFeedException;
import io.docmirror.store.StoreErrorCode;
import io.docmirror.store.changelog.ChangeEvent;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static java.util.Objects.requireNonNull;

/**
 * What a mirror reads when the store's changes come through Kafka: every partition of a container's topic,
 * {@code read_committed} (only what the publisher's transactions committed), from offsets the caller stores with
 * its own output (the mirror keeps them in its manifest), so that nothing is read twice or skipped across restarts.
 *
 * <p>It takes all of the topic's partitions itself instead of joining a consumer group: a container's mirror has one
 * writer (its manifest), so sharing partitions would gain nothing, and a reader restarted after a crash need not wait
 * for the group to notice the dead one. Not thread-safe.
 *
 * <p>Tombstones (the publisher writes one after each delete, for compaction) are skipped: the delete itself is the
 * record before. A caller that stores the offset after the last change it applied may therefore read a tombstone
 * again after a restart, and skips it again; no change is read twice.
 */
public final class KafkaChangeFeedReader implements AutoCloseable {
    /**
     * A change, the {@code _rid} of the container it came from (null when an earlier version published it), and
     * where it sits in the topic: the caller resumes at {@code offset + 1} once it is applied.
     */
    public record Record(ChangeEvent event, String containerRid, TopicPartition partition, long offset) {
        public Record {
            requireNonNull(event, "event is null");
            requireNonNull(partition, "partition is null");
        }
    }

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final String topic;
    private final Map<TopicPartition, Long> startOffsets;

    /**
     * @param startOffsets per partition of the topic, the offset of the first record the caller has not applied;
     *     a partition without one is read from its beginning
     */
    public KafkaChangeFeedReader(KafkaBridgeConfig config, String container, Map<TopicPartition, Long> startOffsets) {
        this.topic = config.topic(container);
        this.startOffsets = Map.copyOf(startOffsets);
        consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers(),
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                // Never jump: a stored offset that retention removed is an error, not a reason to skip or reread.
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none",
                // Only the publisher creates topics, with the partition count it was configured with.
                ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false),
                new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    /**
     * The next committed changes, waiting at most {@code timeout} for some; none while the publisher has not created
     * the topic yet.
     *
     * @throws ChangeFeedException with {@link StoreErrorCode#GONE} when a partition's start offset, or for a
     *     partition without one its first record, is no longer in the topic (retention removed it): reading on would
     *     skip changes; with {@link StoreErrorCode#BAD_REQUEST} for a record that is not a change envelope
     */
    public List<Record> poll(Duration timeout) {
        if (consumer.assignment().isEmpty() && !assignTopic()) {
            return List.of();
        }
        List<Record> records = new ArrayList<>();
        try {
            for (ConsumerRecord<byte[], byte[]> record : consumer.poll(timeout)) {
                if (record.value() != null) {
                    ChangeEnvelope.Published change = decode(record);
                    records.add(new Record(change.event(), change.containerRid(),
                            new TopicPartition(record.topic(), record.partition()), record.offset()));
                }
            }
        } catch (OffsetOutOfRangeException e) {
            throw new ChangeFeedException(StoreErrorCode.GONE, "Cannot read Kafka topic " + topic + " from offsets "
                    + e.offsetOutOfRangePartitions() + ": the topic's retention has removed those records, so "
                    + "reading on would skip changes.", e);
        }
        return records;
    }

    /**
     * @throws ChangeFeedException with {@link StoreErrorCode#BAD_REQUEST} when the record is not a change envelope
     */
    private ChangeEnvelope.Published decode(ConsumerRecord<byte[], byte[]> record) {
        try {
            return ChangeEnvelope.read(record.value());
        } catch (IllegalArgumentException e) {
            throw new ChangeFeedException(StoreErrorCode.BAD_REQUEST, "Cannot read record " + record.offset()
                    + " of Kafka topic " + topic + ", partition " + record.partition() + ": " + e.getMessage()
                    + ". A topic written in docmirror's earlier event format, before the Debezium envelope, cannot "
                    + "be read: publish the container again to a new topic (" + KafkaBridgeConfig.TOPIC_PREFIX.key()
                    + ").", e);
        }
    }

    /**
     * True when every record committed to the topic so far has been returned (trivially so when the topic does not
     * exist yet).
     */
    public boolean caughtUp() {
        if (consumer.assignment().isEmpty()) {
            return !assignTopic();
        }
        Map<TopicPartition, Long> ends = consumer.endOffsets(consumer.assignment());
        // With read_committed, an end offset is the last stable offset: open transactions do not count yet.
        return ends.entrySet().stream().allMatch(end -> consumer.position(end.getKey()) >= end.getValue());
    }

    @Override
    public void close() {
        consumer.close();
    }

    /** Assigns every partition of the topic, at its start offset; false when the topic does not exist yet. */
    private boolean assignTopic() {
        if (!consumer.listTopics().containsKey(topic)) {
            return false;
        }
        List<TopicPartition> partitions = new ArrayList<>();
        for (PartitionInfo info : consumer.partitionsFor(topic)) {
            partitions.add(new TopicPartition(topic, info.partition()));
        }
        consumer.assign(partitions);
        List<TopicPartition> fromBeginning = new ArrayList<>();
        for (TopicPartition partition : partitions) {
            Long offset = startOffsets.get(partition);
            if (offset == null) {
                fromBeginning.add(partition);
            } else {
                consumer.seek(partition, offset);
            }
        }
        // A partition read from its beginning must still hold its first record: otherwise retention removed changes
        // this reader never returned.
        consumer.beginningOffsets(fromBeginning).forEach((partition, first) -> {
            if (first > 0) {
                throw new ChangeFeedException(StoreErrorCode.GONE, "Cannot read Kafka topic " + topic + " from its "
                        + "beginning: partition " + partition.partition() + " starts at offset " + first
                        + ", retention has removed the records before it.");
            }
        });
        if (!fromBeginning.isEmpty()) {
            // Not unconditionally: given no partitions, seekToBeginning rewinds every assigned one.
            consumer.seekToBeginning(fromBeginning);
        }
        return true;
    }
}
