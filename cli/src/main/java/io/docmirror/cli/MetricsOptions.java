package io.docmirror.cli;

import io.docmirror.metrics.MetricsConfig;
import picocli.CommandLine.Option;

/** The metrics endpoint's option of the daemon commands ({@code run}, {@code mirror run}, {@code derive run}). */
final class MetricsOptions {
    @Option(names = "--metrics-port", paramLabel = "N",
            description = "The Prometheus metrics port (default: metrics.port, 9464; 0 picks one).")
    Integer port;

    /** The config file's {@code metrics.*} with this command's port. */
    MetricsConfig config(DataDirOptions dataDir) {
        MetricsConfig config = dataDir.metricsConfig();
        return port == null ? config : config.withPort(port);
    }
}
