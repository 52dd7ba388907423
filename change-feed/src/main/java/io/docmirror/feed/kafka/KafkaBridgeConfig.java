package io.docmirror.feed.kafka;

import java.time.Duration;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * Where and how the Kafka bridge publishes. The reference with defaults is docs/configuration.md ({@code kafka.*}).
 *
 * @param bootstrapServers {@code kafka.bootstrap-servers}
 * @param topicPrefix {@code kafka.topic-prefix}: a container's changes go to topic {@code <prefix><container>}
 * @param topicPartitions {@code kafka.topic-partitions}: partitions of a topic the bridge creates
 * @param offsetsTopic {@code kafka.offsets-topic}: the compacted topic holding each publisher's feed checkpoint,
 *     written in the same transaction as the changes it covers
 * @param maxEventsPerTransaction {@code kafka.max-events-per-transaction}
 * @param pollInterval {@code kafka.poll-interval-ms}: how long a caught-up publisher waits before reading the feed
 */
public record KafkaBridgeConfig(String bootstrapServers, String topicPrefix, int topicPartitions, String offsetsTopic,
        int maxEventsPerTransaction, Duration pollInterval) {
    public static final List<String> OPTIONS = List.of("kafka.bootstrap-servers", "kafka.topic-prefix",
            "kafka.topic-partitions", "kafka.offsets-topic", "kafka.max-events-per-transaction",
            "kafka.poll-interval-ms");

    public KafkaBridgeConfig {
        requireNonNull(bootstrapServers, "bootstrapServers is null");
        requireNonNull(topicPrefix, "topicPrefix is null");
        requireNonNull(offsetsTopic, "offsetsTopic is null");
        if (topicPartitions < 1) {
            throw new IllegalArgumentException("Invalid value " + topicPartitions
                    + " for configuration kafka.topic-partitions: must be at least 1");
        }
        if (maxEventsPerTransaction < 1) {
            throw new IllegalArgumentException("Invalid value " + maxEventsPerTransaction
                    + " for configuration kafka.max-events-per-transaction: must be at least 1");
        }
    }

    public static final String DEFAULT_BOOTSTRAP_SERVERS = "127.0.0.1:9092";

    public static KafkaBridgeConfig defaults() {
        return defaults(DEFAULT_BOOTSTRAP_SERVERS);
    }

    public static KafkaBridgeConfig defaults(String bootstrapServers) {
        return new KafkaBridgeConfig(bootstrapServers, "docmirror.", 4, "docmirror.feed-offsets", 1000,
                Duration.ofMillis(200));
    }

    public String topic(String container) {
        return topicPrefix + container;
    }
}
