package io.docmirror.flink;

import io.docmirror.feed.ContinuationToken;
import io.docmirror.feed.kafka.ChangeEnvelope;
import io.docmirror.feed.kafka.KafkaBridgeConfig;
import io.docmirror.mirror.iceberg.ShardWriter;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.changelog.ChangeEvent;
import org.apache.flink.api.common.functions.util.ListCollector;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The job reads what the single mirror's Kafka source reads: a container's changes after the mirror's continuation,
 * not tombstones, not the changes of an earlier container of the same name.
 */
class FeedRecordDeserializerTest {
    private static final String TOPIC = "docmirror.orders";
    private final ContainerProperties container = new ContainerProperties("orders", "/pk", null, -1, 4, "rid-now",
            null, null);

    @Test
    void aChangeAfterTheContinuationBecomesARecordKeyedByItsDocument() throws Exception {
        List<ChangeEvent> changes = new OrdersWorkload(container).next(40);
        ChangeEvent first = changes.get(0);
        int range = container.logPartitionOf(first.partitionKey().toPartitionKey());
        // The mirror holds the first change's feed range up to the first change: it is left out, the next kept.
        String continuation = new ContinuationToken("orders", Map.of(range, first.lsn())).encode();
        FeedRecordDeserializer deserializer = new FeedRecordDeserializer(container, continuation);
        ChangeEnvelope envelope = new ChangeEnvelope(KafkaBridgeConfig.defaults(), container);

        List<FeedRecord> read = new ArrayList<>();
        for (int offset = 0; offset < changes.size(); offset++) {
            deserializer.deserialize(new ConsumerRecord<>(TOPIC, 2, offset, envelope.key(changes.get(offset)),
                    envelope.value(changes.get(offset), 0)), new ListCollector<>(read));
        }

        assertThat(read).hasSize(changes.size() - 1);
        FeedRecord second = read.get(0);
        assertThat(second.key).isEqualTo(ShardWriter.documentKey(changes.get(1)));
        assertThat(second.topicPartition()).isEqualTo(TOPIC + "-2");
        assertThat(second.offset).isEqualTo(1);
        assertThat(second.lsn).isEqualTo(changes.get(1).lsn());
        assertThat(ChangeEnvelope.fromValue(second.value).id()).isEqualTo(changes.get(1).id());
    }

    @Test
    void tombstonesAndAnEarlierContainersChangesAreLeftOut() throws Exception {
        FeedRecordDeserializer deserializer = new FeedRecordDeserializer(container, null);
        ContainerProperties earlier = new ContainerProperties("orders", "/pk", null, -1, 4, "rid-before", null,
                null);
        ChangeEvent change = new OrdersWorkload(earlier).next(1).get(0);
        ChangeEnvelope ofEarlier = new ChangeEnvelope(KafkaBridgeConfig.defaults(), earlier);
        ContainerProperties unknownRid = new ContainerProperties("orders", "/pk", null, -1, 4, null, null, null);
        ChangeEnvelope withoutRid = new ChangeEnvelope(KafkaBridgeConfig.defaults(), unknownRid);

        List<FeedRecord> read = new ArrayList<>();
        ListCollector<FeedRecord> out = new ListCollector<>(read);
        deserializer.deserialize(new ConsumerRecord<>(TOPIC, 0, 0, ofEarlier.key(change), null), out);
        deserializer.deserialize(new ConsumerRecord<>(TOPIC, 0, 1, ofEarlier.key(change), ofEarlier.value(change, 0)),
                out);
        assertThat(read).isEmpty();

        // Published by an earlier version, without the _rid: taken as this container's, as the mirror takes it.
        deserializer.deserialize(new ConsumerRecord<>(TOPIC, 0, 2, withoutRid.key(change),
                withoutRid.value(change, 0)), out);
        assertThat(read).hasSize(1);
    }
}
