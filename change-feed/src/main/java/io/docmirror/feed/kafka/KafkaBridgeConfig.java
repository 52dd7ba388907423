package io.docmirror.feed.kafka;

import io.docmirror.config.ConfigOption;
import io.docmirror.config.ConfigRule;
import io.docmirror.config.ConfigSection;
import io.docmirror.config.ConfigType;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static java.util.Objects.requireNonNull;

/**
 * Where and how the Kafka bridge publishes ({@code kafka.*}). Every option is declared once below, with its rule;
 * docs/configuration.md is generated from the declarations.
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
    /** The prefix of the options below. */
    public static final String PREFIX = "kafka.";
    public static final ConfigOption BOOTSTRAP_SERVERS = new ConfigOption("kafka.bootstrap-servers", "127.0.0.1:9092",
            "The brokers to connect to.");
    public static final ConfigOption TOPIC_PREFIX = new ConfigOption("kafka.topic-prefix", "docmirror.",
            "A container's changes go to topic `<prefix><container>`, created when missing.");
    public static final ConfigOption TOPIC_PARTITIONS = new ConfigOption("kafka.topic-partitions", "4",
            "Partitions of a topic the bridge creates (changes of one item always share a partition).")
            .withRule(ConfigRule.atLeast(1));
    public static final ConfigOption OFFSETS_TOPIC = new ConfigOption("kafka.offsets-topic", "docmirror.feed-offsets",
            "Compacted topic with each publisher's feed checkpoint, written in the same transaction as the changes "
                    + "it covers.");
    public static final ConfigOption MAX_EVENTS_PER_TRANSACTION = new ConfigOption(
            "kafka.max-events-per-transaction", "1000", "The most changes one transaction carries.")
            .withRule(ConfigRule.atLeast(1));
    public static final ConfigOption POLL_INTERVAL_MS = new ConfigOption("kafka.poll-interval-ms", "200",
            "How long a caught-up publisher waits before reading the feed again.")
            .withRule(ConfigRule.atLeast(0));
    public static final ConfigOption CONNECT_SCHEMAS = new ConfigOption("kafka.connect-schemas", ConfigType.BOOLEAN,
            "false", "Each event carries its Kafka Connect schema, `{\"schema\":…,\"payload\":…}`, as Connect's "
                    + "`JsonConverter` expects with `schemas.enable=true` (its default) and Debezium's "
                    + "`ExtractNewRecordState` needs; `false`: the payload alone, for `schemas.enable=false` and "
                    + "plain consumers. The payload is the same either way, and an item's changes stay in one "
                    + "partition when it is changed. The event format: README, \"Kafka events\".");
    public static final List<ConfigOption> OPTIONS = List.of(BOOTSTRAP_SERVERS, TOPIC_PREFIX, TOPIC_PARTITIONS,
            OFFSETS_TOPIC, MAX_EVENTS_PER_TRANSACTION, POLL_INTERVAL_MS, CONNECT_SCHEMAS);

    public KafkaBridgeConfig {
        requireNonNull(bootstrapServers, "bootstrapServers is null");
        requireNonNull(topicPrefix, "topicPrefix is null");
        requireNonNull(offsetsTopic, "offsetsTopic is null");
        TOPIC_PARTITIONS.check(topicPartitions);
        MAX_EVENTS_PER_TRANSACTION.check(maxEventsPerTransaction);
        requireNonNull(pollInterval, "pollInterval is null");
        POLL_INTERVAL_MS.check(pollInterval.toMillis());
    }

    public static KafkaBridgeConfig defaults() {
        return fromProperties(Map.of());
    }

    /** The defaults, with other brokers. */
    public static KafkaBridgeConfig defaults(String bootstrapServers) {
        return fromProperties(Map.of(BOOTSTRAP_SERVERS.key(), bootstrapServers));
    }

    /**
     * Reads the {@code kafka.*} entries of a config file; missing keys take their defaults.
     *
     * @throws IllegalArgumentException "Invalid value X for configuration Y: reason", or for an unknown key
     */
    public static KafkaBridgeConfig fromProperties(Map<String, String> properties) {
        ConfigSection section = ConfigSection.of(PREFIX, OPTIONS, properties);
        return new KafkaBridgeConfig(section.text(BOOTSTRAP_SERVERS).trim(), section.text(TOPIC_PREFIX).trim(),
                section.intValue(TOPIC_PARTITIONS), section.text(OFFSETS_TOPIC).trim(),
                section.intValue(MAX_EVENTS_PER_TRANSACTION), Duration.ofMillis(section.longValue(POLL_INTERVAL_MS)),
                section.booleanValue(CONNECT_SCHEMAS));
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
