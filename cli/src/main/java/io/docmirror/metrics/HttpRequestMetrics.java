package io.docmirror.metrics;

import io.docmirror.store.server.RequestObserver;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;

/**
 * The store HTTP API's requests, counted as they are answered: by method, route pattern and status, and their
 * latency (arrival in full to answer sent) by method and route.
 */
public final class HttpRequestMetrics implements RequestObserver, MultiCollector {
    /** From 0.25 ms (a point read in-process) to 10 s (a large bulk write). */
    private static final double[] LATENCY_BOUNDS_SECONDS = {0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
            0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};

    private final Counter requests = Counter.builder()
            .name("docmirror_store_http_requests")
            .help("Requests answered by the store's HTTP API")
            .labelNames("method", "route", "status")
            .build();
    private final Histogram latency = Histogram.builder()
            .name("docmirror_store_http_request_duration_seconds")
            .help("Time from a request's arrival in full to its answer handed to the connection")
            .labelNames("method", "route")
            .classicOnly()
            .classicUpperBounds(LATENCY_BOUNDS_SECONDS)
            .build();

    @Override
    public void answered(String method, String route, int status, long nanos) {
        requests.labelValues(method, route, Integer.toString(status)).inc();
        latency.labelValues(method, route).observe(nanos / 1e9);
    }

    @Override
    public MetricSnapshots collect() {
        return MetricSnapshots.of(requests.collect(), latency.collect());
    }
}
