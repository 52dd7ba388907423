package io.docmirror.cli;

import io.docmirror.metrics.MetricsConfig;
import io.docmirror.metrics.MetricsServer;
import io.prometheus.metrics.model.registry.MultiCollector;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.util.List;
import java.util.Optional;

/** The metrics endpoint's option of the daemon commands ({@code run}, {@code mirror run}, {@code derive run}, {@code sql serve}). */
final class MetricsOptions {
    @Option(names = "--metrics-port", paramLabel = "N",
            description = "The Prometheus metrics port (default: metrics.port, 9464; 0 picks one).")
    Integer port;

    /** The config file's {@code metrics.*} with this command's port. */
    MetricsConfig config(DataDirOptions dataDir) {
        MetricsConfig config = dataDir.metricsConfig();
        return port == null ? config : config.withPort(port);
    }

    /** Serves the collectors' metrics (and the JVM's) unless {@code metrics.enabled} is false, and says where. */
    static Optional<MetricsServer> start(MetricsConfig config, List<MultiCollector> collectors, PrintStream out) {
        Optional<MetricsServer> server = MetricsServer.startIfEnabled(config, collectors);
        server.ifPresent(started -> out.println("Metrics (Prometheus): " + started.metricsUri()));
        return server;
    }
}
