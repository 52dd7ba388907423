package io.docmirror.feed.kafka;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class KafkaBridgeConfigTest {
    @Test
    void defaultsAreTheDocumentedOnes() {
        KafkaBridgeConfig defaults = KafkaBridgeConfig.defaults();
        assertThat(defaults).isEqualTo(new KafkaBridgeConfig("127.0.0.1:9092", "docmirror.", 4,
                "docmirror.feed-offsets", 1000, Duration.ofMillis(200), false));
        assertThat(defaults.topic("orders")).isEqualTo("docmirror.orders");
    }

    @Test
    void aConfigFileSetsEachOption() {
        assertThat(KafkaBridgeConfig.fromProperties(Map.of("kafka.bootstrap-servers", "k1:9092,k2:9092",
                "kafka.topic-prefix", "prod.", "kafka.topic-partitions", "12", "kafka.poll-interval-ms", "50",
                "kafka.connect-schemas", "true")))
                .isEqualTo(new KafkaBridgeConfig("k1:9092,k2:9092", "prod.", 12, "docmirror.feed-offsets", 1000,
                        Duration.ofMillis(50), true));
        assertThatThrownBy(() -> KafkaBridgeConfig.fromProperties(Map.of("kafka.topic-partitions", "many")))
                .hasMessageStartingWith("Invalid value many for configuration kafka.topic-partitions");
        assertThatThrownBy(() -> KafkaBridgeConfig.fromProperties(Map.of("kafka.connect-schemas", "yes")))
                .hasMessage("Invalid value yes for configuration kafka.connect-schemas: must be true or false");
    }

    @Test
    void invalidValuesNameTheKey() {
        assertThatThrownBy(() -> new KafkaBridgeConfig("b:9092", "p.", 0, "o", 10, Duration.ofMillis(1),
                false))
                .hasMessage("Invalid value 0 for configuration kafka.topic-partitions: must be at least 1");
        assertThatThrownBy(() -> KafkaBridgeConfig.fromProperties(Map.of("kafka.max-events-per-transaction", "0")))
                .hasMessage("Invalid value 0 for configuration kafka.max-events-per-transaction: must be at least 1");
        // Refused when read, not when the publisher first sleeps and Thread.sleep refuses a negative time.
        assertThatThrownBy(() -> KafkaBridgeConfig.fromProperties(Map.of("kafka.poll-interval-ms", "-1")))
                .hasMessage("Invalid value -1 for configuration kafka.poll-interval-ms: must be at least 0");
    }
}
