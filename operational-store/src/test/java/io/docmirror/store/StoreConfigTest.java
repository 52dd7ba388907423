package io.docmirror.store;

import io.docmirror.config.ConfigDocumentation;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class StoreConfigTest {
    @Test
    void defaults() {
        assertThat(StoreConfig.defaults()).isEqualTo(new StoreConfig(true, Duration.ofSeconds(1), 1000, "127.0.0.1", 8081,
                16, Optional.empty(), Optional.empty(), 604_800_000L, -1));
    }

    @Test
    void explicitMapping() {
        StoreConfig config = StoreConfig.fromProperties(Map.of(
                "store.sync-writes", "false",
                "store.ttl.reaper-interval-ms", "250",
                "store.ttl.reaper-batch-size", "10",
                "store.http.bind", "0.0.0.0",
                "store.http.port", "9000",
                "store.http.threads", "4",
                "store.http.primary-key", "k1",
                "store.http.read-only-key", "k2",
                "store.change-log.retention-ms", "3600000",
                "store.change-log.retention-events", "5000"));

        assertThat(config).isEqualTo(new StoreConfig(false, Duration.ofMillis(250), 10, "0.0.0.0", 9000, 4,
                Optional.of("k1"), Optional.of("k2"), 3_600_000L, 5000));
    }

    @Test
    void invalidValuesNameTheKey() {
        assertThatThrownBy(() -> StoreConfig.fromProperties(Map.of("store.http.port", "http")))
                .hasMessage("Invalid value http for configuration store.http.port: must be an integer");
        assertThatThrownBy(() -> StoreConfig.fromProperties(Map.of("store.sync-writes", "yes")))
                .hasMessage("Invalid value yes for configuration store.sync-writes: must be true or false");
        assertThatThrownBy(() -> StoreConfig.fromProperties(Map.of("store.sync-write", "true")))
                .hasMessage("Unknown configuration store.sync-write; see docs/configuration.md");
    }

    @Test
    void everyOptionIsDocumentedWithItsDefault() {
        ConfigDocumentation.assertDocumented(StoreConfig.OPTIONS);
    }
}
