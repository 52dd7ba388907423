package io.docmirror.flink;

import io.docmirror.feed.kafka.ChangeEnvelope;
import io.docmirror.feed.kafka.KafkaBroker;
import io.docmirror.store.changelog.ChangeEvent;
import io.docmirror.store.changelog.Operation;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * A container's Kafka topic, written as {@code KafkaChangePublisher} writes it: each change's envelope keyed by its
 * item, a tombstone after a delete, by an idempotent producer that waits for every replica.
 */
final class ContainerTopic implements AutoCloseable {
    private final KafkaProducer<byte[], byte[]> producer;
    private final String topic;

    ContainerTopic(KafkaBroker broker, String topic) {
        this.producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
                ProducerConfig.ACKS_CONFIG, "all",
                // One request at a time: a topic just created answers its first sends NOT_LEADER_OR_FOLLOWER, and
                // with more in flight the broker then refuses every later batch of the partition as out of
                // sequence until the delivery timeout (seen in FlinkStreamBenchmarkSmokeTest).
                ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1),
                new ByteArraySerializer(), new ByteArraySerializer());
        this.topic = topic;
    }

    /** Publishes {@code events} and returns once the broker holds every one. */
    void publish(ChangeEnvelope envelope, List<ChangeEvent> events) throws Exception {
        List<Future<RecordMetadata>> sent = new ArrayList<>();
        for (ChangeEvent event : events) {
            byte[] key = envelope.key(event);
            sent.add(producer.send(new ProducerRecord<>(topic, key,
                    envelope.value(event, System.currentTimeMillis()))));
            if (event.operation() == Operation.DELETE) {
                sent.add(producer.send(new ProducerRecord<>(topic, key, null)));
            }
        }
        // A send that failed (a broker just started moves its leaders) would look like a change the job lost.
        for (Future<RecordMetadata> record : sent) {
            record.get(120, TimeUnit.SECONDS);
        }
    }

    /**
     * Sends one change that is not a delete, without waiting: {@code acknowledged} is called with where the broker
     * put it, or why it did not (a partition's records in the order they were sent).
     */
    void send(ChangeEnvelope envelope, ChangeEvent event, Callback acknowledged) {
        if (event.operation() == Operation.DELETE) {
            throw new IllegalArgumentException("A delete of " + event.id() + " needs its tombstone: publish it");
        }
        producer.send(new ProducerRecord<>(topic, envelope.key(event),
                envelope.value(event, System.currentTimeMillis())), acknowledged);
    }

    /** Sends what the producer still holds and waits for the broker's acknowledgements. */
    void flush() {
        producer.flush();
    }

    @Override
    public void close() {
        producer.close();
    }
}
