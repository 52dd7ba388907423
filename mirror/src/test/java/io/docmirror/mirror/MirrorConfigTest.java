package io.docmirror.mirror;

import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MirrorConfigTest {
    @Test
    void defaultsKeepTheMirrorWithinHalfASecond() {
        MirrorConfig config = MirrorConfig.defaults();

        assertThat(config.batchMaxEvents()).isEqualTo(50_000);
        assertThat(config.batchMaxInterval()).isEqualTo(Duration.ofMillis(500));
        assertThat(config.parquet().compression()).isEqualTo(CompressionCodecName.ZSTD);
        assertThat(config.analyticalTtlInterval()).isEqualTo(Duration.ofMinutes(1));
    }

    @Test
    void readsTheConfigFileEntries() {
        MirrorConfig config = MirrorConfig.fromProperties(Map.of("mirror.batch.max-events", "10",
                "mirror.parquet.compression", "gzip", "mirror.analytical-ttl.interval-ms", "5000",
                "store.sync-writes", "false"));

        assertThat(config.batchMaxEvents()).isEqualTo(10);
        assertThat(config.analyticalTtlInterval()).isEqualTo(Duration.ofSeconds(5));
        assertThat(config.parquet().compression()).isEqualTo(CompressionCodecName.GZIP);
    }

    @Test
    void refusesUnknownKeysAndBadValuesNamingThem() {
        assertThatThrownBy(() -> MirrorConfig.fromProperties(Map.of("mirror.batch.size", "10")))
                .hasMessage("Unknown configuration mirror.batch.size (did you mean mirror.batch.max-events?);"
                        + " see docs/configuration.md");
        assertThatThrownBy(() -> MirrorConfig.fromProperties(Map.of("mirror.batch.max-events", "0")))
                .hasMessage("Invalid value 0 for configuration mirror.batch.max-events: must be at least 1");
        assertThatThrownBy(() -> MirrorConfig.fromProperties(Map.of("mirror.parquet.compression", "brotli")))
                .hasMessageContaining("Invalid value brotli for configuration mirror.parquet.compression");
        assertThatThrownBy(() -> MirrorConfig.fromProperties(Map.of("mirror.analytical-ttl.interval-ms", "0")))
                .hasMessage("Invalid value 0 for configuration mirror.analytical-ttl.interval-ms: must be at least 1");
        assertThatThrownBy(() -> MirrorConfig.fromProperties(Map.of("mirror.poll-interval-ms", "soon")))
                .hasMessage("Invalid value soon for configuration mirror.poll-interval-ms: must be an integer");
    }
}
