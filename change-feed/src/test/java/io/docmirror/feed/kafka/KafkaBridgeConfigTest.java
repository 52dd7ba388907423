package io.docmirror.feed.kafka;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class KafkaBridgeConfigTest {
    @Test
    void defaultsAreTheDocumentedOnes() throws IOException {
        KafkaBridgeConfig defaults = KafkaBridgeConfig.defaults();
        assertThat(defaults).isEqualTo(new KafkaBridgeConfig("127.0.0.1:9092", "docmirror.", 4,
                "docmirror.feed-offsets", 1000, Duration.ofMillis(200)));
        assertThat(defaults.topic("orders")).isEqualTo("docmirror.orders");

        String documentation = Files.readString(Path.of("..", "docs", "configuration.md"));
        assertThat(documentation)
                .contains("| `kafka.bootstrap-servers` | `" + defaults.bootstrapServers() + "` |")
                .contains("| `kafka.topic-prefix` | `" + defaults.topicPrefix() + "` |")
                .contains("| `kafka.topic-partitions` | `" + defaults.topicPartitions() + "` |")
                .contains("| `kafka.offsets-topic` | `" + defaults.offsetsTopic() + "` |")
                .contains("| `kafka.max-events-per-transaction` | `" + defaults.maxEventsPerTransaction() + "` |")
                .contains("| `kafka.poll-interval-ms` | `" + defaults.pollInterval().toMillis() + "` |");
        for (String option : KafkaBridgeConfig.OPTIONS) {
            assertThat(documentation).contains("| `" + option + "` |");
        }
    }

    @Test
    void invalidValuesNameTheKey() {
        assertThatThrownBy(() -> new KafkaBridgeConfig("b:9092", "p.", 0, "o", 10, Duration.ofMillis(1)))
                .hasMessage("Invalid value 0 for configuration kafka.topic-partitions: must be at least 1");
    }
}
