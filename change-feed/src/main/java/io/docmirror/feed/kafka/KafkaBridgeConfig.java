package io.docmirror.feed.kafka;

import io.docmirror.config.ConfigOption;
import io.docmirror.config.ConfigSection;
import io.docmirror.config.ConfigType;

import java.time.Duration;
import java.util.List;
import java.util.Map;

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
 * @param connectSchemas {@code kafka.connect-schemas}: each event carries its Kafka Connect schema
 *     ({@code {"schema":…,"payload":…}}), as Connect's JsonConverter expects with {@code schemas.enable=true}
 */
public record KafkaBridgeConfig(String bootstrapServers, String topicPrefix, int topicPartitions, String offsetsTopic,
        int maxEventsPerTransaction, Duration pollInterval, boolean connectSchemas) {
    public static final List<ConfigOption> OPTIONS = List.of(
            new ConfigOption("kafka.bootstrap-servers", "127.0.0.1:9092", "The brokers to connect to."),
            new ConfigOption("kafka.topic-prefix", "docmirror.",
                    "A container's changes go to topic `<prefix><container>`, created when missing."),
            new ConfigOption("kafka.topic-partitions", "4",
                    "Partitions of a topic the bridge creates (changes of one item always share a partition)."),
            new ConfigOption("kafka.offsets-topic", "docmirror.feed-offsets",
                    "Compacted topic with each publisher's feed checkpoint, written in the same transaction as the "
                            + "changes it covers."),
            new ConfigOption("kafka.max-events-per-transaction", "1000", "The most changes one transaction carries."),
            new ConfigOption("kafka.poll-interval-ms", "200",
                    "How long a caught-up publisher waits before reading the feed again."),
            new ConfigOption("kafka.connect-schemas", ConfigType.BOOLEAN, "false",
                    "Each event carries its Kafka Connect schema, `{\"schema\":…,\"payload\":…}`, as Connect's "
                            + "`JsonConverter` expects with `schemas.enable=true` (its default) and Debezium's "
                            + "`ExtractNewRecordState` needs; `false`: the payload alone, for `schemas.enable=false` "
                            + "and plain consumers. The payload is the same either way, and an item's changes stay in "
                            + "one partition when it is changed. The event format: README, \"Kafka events\"."));

    public KafkaBridgeConfig {
        requireNonNull(bootstrapServers, "bootstrapServers is null");
        requireNonNull(topicPrefix, "topicPrefix is null");
        requireNonNull(offsetsTopic, "offsetsTopic is null");
        if (topicPartitions < 1) {
            throw ConfigSection.invalid("kafka.topic-partitions", topicPartitions, "must be at least 1");
        }
        if (maxEventsPerTransaction < 1) {
            throw ConfigSection.invalid("kafka.max-events-per-transaction", maxEventsPerTransaction,
                    "must be at least 1");
        }
    }

    public static KafkaBridgeConfig defaults() {
        return fromProperties(Map.of());
    }

    /** The defaults, with other brokers. */
    public static KafkaBridgeConfig defaults(String bootstrapServers) {
        return fromProperties(Map.of("kafka.bootstrap-servers", bootstrapServers));
    }

    /**
     * Reads the {@code kafka.*} entries of a config file; missing keys take their defaults.
     *
     * @throws IllegalArgumentException "Invalid value X for configuration Y: reason", or for an unknown key
     */
    public static KafkaBridgeConfig fromProperties(Map<String, String> properties) {
        ConfigSection section = ConfigSection.of("kafka.", OPTIONS, properties);
        return new KafkaBridgeConfig(section.text("kafka.bootstrap-servers").trim(),
                section.text("kafka.topic-prefix").trim(), section.intValue("kafka.topic-partitions"),
                section.text("kafka.offsets-topic").trim(), section.intValue("kafka.max-events-per-transaction"),
                Duration.ofMillis(section.longValue("kafka.poll-interval-ms")),
                section.booleanValue("kafka.connect-schemas"));
    }

    public String topic(String container) {
        return topicPrefix + container;
    }

    /** The same settings, with or without Kafka Connect schemas in the events. */
    public KafkaBridgeConfig withConnectSchemas(boolean connectSchemas) {
        return new KafkaBridgeConfig(bootstrapServers, topicPrefix, topicPartitions, offsetsTopic,
                maxEventsPerTransaction, pollInterval, connectSchemas);
    }
}
