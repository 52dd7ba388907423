package io.docmirror.metrics;

import io.docmirror.config.ConfigOption;
import io.docmirror.config.ConfigSection;

import java.util.List;
import java.util.Map;

import static java.util.Objects.requireNonNull;

/**
 * Where the daemons ({@code run}, {@code mirror run}, {@code derive run}; {@code store serve} and {@code sql serve}
 * with {@code --metrics-port}) serve their Prometheus metrics
 * ({@code metrics.*}; the reference is docs/configuration.md).
 *
 * @param enabled {@code metrics.enabled}: serve metrics at all
 * @param bind {@code metrics.bind}: the address to listen on
 * @param port {@code metrics.port}: the port (0 picks a free one)
 */
public record MetricsConfig(boolean enabled, String bind, int port) {
    public static final List<ConfigOption> OPTIONS = List.of(
            new ConfigOption("metrics.enabled", "true",
                    "Serve Prometheus metrics (`/metrics`) and a liveness check (`/-/healthy`) over HTTP."),
            new ConfigOption("metrics.bind", "127.0.0.1", "The address the metrics endpoint listens on."),
            new ConfigOption("metrics.port", "9464",
                    "Its port (Prometheus's conventional exporter port); 0 picks a free one. `--metrics-port` of each "
                            + "daemon overrides it."));

    public MetricsConfig {
        requireNonNull(bind, "bind is null");
        if (port < 0 || port > 65_535) {
            throw ConfigSection.invalid("metrics.port", port, "must be a port number, 0 to 65535");
        }
    }

    public static MetricsConfig defaults() {
        return fromProperties(Map.of());
    }

    /**
     * Reads the {@code metrics.*} entries of a config file; missing keys take their defaults.
     *
     * @throws IllegalArgumentException "Invalid value X for configuration Y: reason", or for an unknown key
     */
    public static MetricsConfig fromProperties(Map<String, String> properties) {
        ConfigSection section = ConfigSection.of("metrics.", OPTIONS, properties);
        return new MetricsConfig(section.booleanValue("metrics.enabled"), section.text("metrics.bind").trim(),
                section.intValue("metrics.port"));
    }

    public MetricsConfig withPort(int newPort) {
        return new MetricsConfig(enabled, bind, newPort);
    }
}
