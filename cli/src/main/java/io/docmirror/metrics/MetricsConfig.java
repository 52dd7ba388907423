package io.docmirror.metrics;

import io.docmirror.config.ConfigOption;
import io.docmirror.config.ConfigRule;
import io.docmirror.config.ConfigSection;

import java.util.List;
import java.util.Map;

import static java.util.Objects.requireNonNull;

/**
 * Where the daemons ({@code run}, {@code mirror run}, {@code derive run}; {@code store serve} and {@code sql serve}
 * with {@code --metrics-port}) serve their Prometheus metrics ({@code metrics.*}). Every option is declared once
 * below, with its rule; docs/configuration.md is generated from the declarations.
 *
 * @param enabled {@code metrics.enabled}: serve metrics at all
 * @param bind {@code metrics.bind}: the address to listen on
 * @param port {@code metrics.port}: the port (0 picks a free one)
 */
public record MetricsConfig(boolean enabled, String bind, int port) {
    /** The prefix of the options below. */
    public static final String PREFIX = "metrics.";
    public static final ConfigOption ENABLED = new ConfigOption("metrics.enabled", "true",
            "Serve Prometheus metrics (`/metrics`) and a liveness check (`/-/healthy`) over HTTP.");
    public static final ConfigOption BIND = new ConfigOption("metrics.bind", "127.0.0.1",
            "The address the metrics endpoint listens on.");
    public static final ConfigOption PORT = new ConfigOption("metrics.port", "9464",
            "Its port (Prometheus's conventional exporter port); 0 picks a free one. `--metrics-port` of each daemon "
                    + "overrides it.")
            .withRule(ConfigRule.between(0, 65_535));
    public static final List<ConfigOption> OPTIONS = List.of(ENABLED, BIND, PORT);

    public MetricsConfig {
        requireNonNull(bind, "bind is null");
        PORT.check(port);
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
        ConfigSection section = ConfigSection.of(PREFIX, OPTIONS, properties);
        return new MetricsConfig(section.booleanValue(ENABLED), section.text(BIND).trim(), section.intValue(PORT));
    }

    public MetricsConfig withPort(int newPort) {
        return new MetricsConfig(enabled, bind, newPort);
    }
}
