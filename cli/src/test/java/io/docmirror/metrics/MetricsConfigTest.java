package io.docmirror.metrics;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MetricsConfigTest {
    @Test
    void defaultsServeOnLoopbackAtThePrometheusExporterPort() {
        MetricsConfig config = MetricsConfig.defaults();

        assertThat(config.enabled()).isTrue();
        assertThat(config.bind()).isEqualTo("127.0.0.1");
        assertThat(config.port()).isEqualTo(9464);
    }

    @Test
    void badValuesAreRefusedWithTheirKey() {
        assertThatThrownBy(() -> MetricsConfig.fromProperties(Map.of("metrics.port", "-1")))
                .hasMessage("Invalid value -1 for configuration metrics.port: must be from 0 to 65535");
        assertThatThrownBy(() -> MetricsConfig.fromProperties(Map.of("metrics.path", "/m")))
                .hasMessage("Unknown configuration metrics.path (did you mean metrics.port?);"
                        + " see docs/configuration.md");
    }
}
