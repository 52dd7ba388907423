package io.docmirror.flink;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.docmirror.feed.ContinuationToken;
import io.docmirror.feed.kafka.ChangeEnvelope;
import io.docmirror.mirror.iceberg.ShardWriter;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.StoreJson;
import io.docmirror.store.changelog.ChangeEvent;
import org.apache.flink.api.common.serialization.DeserializationSchema;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.connector.kafka.source.reader.deserializer.KafkaRecordDeserializationSchema;
import org.apache.flink.util.Collector;
import org.apache.kafka.clients.consumer.ConsumerRecord;

import java.io.UncheckedIOException;
import java.util.Map;

import static java.util.Objects.requireNonNull;

/**
 * Reads a record of a container's topic ({@code KafkaChangePublisher}'s change envelope) into a {@link FeedRecord},
 * leaving out what the mirror must not apply, as the single mirror's {@code KafkaTopicSource} does: tombstones, the
 * changes of another container of the same name (deleted and created again: another {@code _rid}), and the changes
 * the mirror holds already (at or below its continuation's LSN for their feed range, from a backfill or the store's
 * feed).
 */
final class FeedRecordDeserializer implements KafkaRecordDeserializationSchema<FeedRecord> {
    private static final long serialVersionUID = 1L;

    /** The container's properties as JSON: the record is not serializable, its JSON is its stable form. */
    private final String containerJson;
    private final Map<Integer, Long> alreadyMirrored;
    private transient ContainerProperties container;

    /**
     * @param continuation the mirror's recorded continuation ({@code Checkpoint.continuation}); null: none
     */
    FeedRecordDeserializer(ContainerProperties container, String continuation) {
        requireNonNull(container, "container is null");
        try {
            this.containerJson = StoreJson.mapper().writeValueAsString(container);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException("Cannot write the properties of " + container.id() + " as JSON", e);
        }
        this.alreadyMirrored = continuation == null ? Map.of()
                : Map.copyOf(ContinuationToken.decode(continuation).positions());
    }

    @Override
    public void open(DeserializationSchema.InitializationContext context) {
        container();
    }

    private ContainerProperties container() {
        if (container == null) {
            try {
                container = StoreJson.mapper().readValue(containerJson, ContainerProperties.class);
            } catch (JsonProcessingException e) {
                throw new UncheckedIOException("Cannot read the container's properties " + containerJson, e);
            }
        }
        return container;
    }

    @Override
    public void deserialize(ConsumerRecord<byte[], byte[]> record, Collector<FeedRecord> out) {
        if (record.value() == null) {
            // A tombstone: the topic's compaction, never a change.
            return;
        }
        ContainerProperties properties = container();
        ChangeEnvelope.Published published;
        try {
            published = ChangeEnvelope.read(record.value());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("The record at offset " + record.offset() + " of " + record.topic()
                    + "-" + record.partition() + " is not a change of " + properties.id() + ": " + e.getMessage(),
                    e);
        }
        if (!ContainerProperties.mayBeSameContainer(published.containerRid(), properties.resourceId())) {
            return;
        }
        ChangeEvent event = published.event();
        int feedRange = properties.logPartitionOf(event.partitionKey().toPartitionKey());
        if (event.lsn() <= alreadyMirrored.getOrDefault(feedRange, 0L)) {
            return;
        }
        out.collect(new FeedRecord(ShardWriter.documentKey(event), record.topic(), record.partition(),
                record.offset(), feedRange, event.lsn(), record.value()));
    }

    @Override
    public TypeInformation<FeedRecord> getProducedType() {
        return TypeInformation.of(FeedRecord.class);
    }
}
