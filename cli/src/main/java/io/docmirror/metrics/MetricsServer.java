package io.docmirror.metrics;

import io.prometheus.metrics.exporter.httpserver.HTTPServer;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.util.List;
import java.util.Optional;

/**
 * Serves a daemon's metrics in Prometheus's text format at {@code /metrics}, and {@code /-/healthy} (200 while the
 * process runs: a daemon whose work fails stops the process). Each server has its own registry; nothing is global.
 */
public final class MetricsServer implements AutoCloseable {
    private final HTTPServer server;
    private final String bind;

    private MetricsServer(HTTPServer server, String bind) {
        this.server = server;
        this.bind = bind;
    }

    /**
     * Serves the collectors' metrics with the Prometheus client's standard JVM and process metrics (memory, GC,
     * threads, classes, CPU, buffer pools, open files), or nothing when {@code metrics.enabled} is false.
     */
    public static Optional<MetricsServer> startIfEnabled(MetricsConfig config, List<MultiCollector> collectors) {
        if (!config.enabled()) {
            return Optional.empty();
        }
        PrometheusRegistry registry = new PrometheusRegistry();
        collectors.forEach(registry::register);
        JvmMetrics.builder().register(registry);
        try {
            return Optional.of(new MetricsServer(HTTPServer.builder().hostname(config.bind()).port(config.port())
                    .registry(registry).buildAndStart(), config.bind()));
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot serve metrics on " + config.bind() + ":" + config.port()
                    + " (" + MetricsConfig.BIND.key() + ", " + MetricsConfig.PORT.key() + "; "
                    + MetricsConfig.ENABLED.key() + "=false turns them off): " + e.getMessage(), e);
        }
    }

    /** Where the metrics are: {@code http://127.0.0.1:9464/metrics}. */
    public URI metricsUri() {
        return URI.create("http://" + bind + ":" + server.getPort() + "/metrics");
    }

    @Override
    public void close() {
        server.close();
    }
}
