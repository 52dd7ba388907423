package io.docmirror.cli;

import io.docmirror.store.ChildProcesses;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.PartitionKey;
import io.docmirror.store.StoreClient;
import io.docmirror.store.http.HttpStoreClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code docmirror store serve --metrics-port N}, run as a process: after concurrent upserts and point reads over
 * the store's HTTP API, a scrape of its metrics, read by the rules of Prometheus's text format, counts exactly those
 * requests by route and status, their latency, the group commits that made them durable, the change log they wrote,
 * and has the JVM's metrics.
 */
class StoreServeMetricsTest {
    private static final String ITEMS = "/containers/{container}/items";
    private static final String ITEM = "/containers/{container}/items/{id}";
    private static final int WRITERS = 16;
    private static final int WRITES_EACH = 20;

    @TempDir
    Path dir;

    @Test
    void scrapeCountsTheRequestsTheirLatencyTheGroupCommitsAndTheChangeLog() throws Exception {
        int storePort = freePort();
        int metricsPort = freePort();
        Process serve = ChildProcesses.startJava(Docmirror.class.getName(),
                "Metrics (Prometheus): http://127.0.0.1:" + metricsPort + "/metrics",
                "store", "serve", "--data", dir.toString(), "--port", Integer.toString(storePort),
                "--metrics-port", Integer.toString(metricsPort));
        try {
            String base = "http://127.0.0.1:" + storePort;
            try (StoreClient admin = new HttpStoreClient(base, Optional.empty())) {
                admin.createContainer(ContainerProperties.of("orders", "/pk"));
            }
            upsertConcurrently(base);
            try (StoreClient reader = new HttpStoreClient(base, Optional.empty())) {
                for (int n = 0; n < 10; n++) {
                    assertThat(reader.findItem("orders", PartitionKey.of("c" + n % 5), "o-0-" + n)).isPresent();
                }
                assertThat(reader.findItem("orders", PartitionKey.of("c0"), "missing")).isEmpty();
            }

            PrometheusText metrics = PrometheusText.parse(scrape(metricsPort));

            int writes = WRITERS * WRITES_EACH;
            assertThat(metrics.type("docmirror_store_http_requests_total")).isEqualTo("counter");
            assertThat(metrics.sum("docmirror_store_http_requests_total",
                    Map.of("method", "POST", "route", ITEMS, "status", "201"))).as("upserts that created their items")
                    .isEqualTo(writes);
            assertThat(metrics.sum("docmirror_store_http_requests_total",
                    Map.of("method", "GET", "route", ITEM, "status", "200"))).isEqualTo(10);
            assertThat(metrics.sum("docmirror_store_http_requests_total",
                    Map.of("method", "GET", "route", ITEM, "status", "404"))).isEqualTo(1);
            assertThat(metrics.sum("docmirror_store_http_requests_total",
                    Map.of("method", "POST", "route", "/containers", "status", "201"))).isEqualTo(1);

            assertThat(metrics.type("docmirror_store_http_request_duration_seconds")).isEqualTo("histogram");
            Map<String, String> upserts = Map.of("method", "POST", "route", ITEMS);
            assertThat(metrics.sum("docmirror_store_http_request_duration_seconds_count", upserts)).isEqualTo(writes);
            assertThat(metrics.sum("docmirror_store_http_request_duration_seconds_bucket",
                    Map.of("method", "POST", "route", ITEMS, "le", "+Inf"))).isEqualTo(writes);
            assertThat(metrics.sum("docmirror_store_http_request_duration_seconds_sum", upserts)).isPositive();

            assertThat(metrics.type("docmirror_store_group_commit_size")).isEqualTo("histogram");
            double groups = metrics.sum("docmirror_store_group_commit_size_count", Map.of());
            assertThat(metrics.sum("docmirror_store_group_commit_size_sum", Map.of()))
                    .as("writes made durable by the group commits").isEqualTo(writes);
            assertThat(groups).isBetween(1.0, (double) writes);
            assertThat(metrics.sum("docmirror_store_group_commit_size_bucket", Map.of("le", "+Inf")))
                    .isEqualTo(groups);

            assertThat(metrics.sum("docmirror_store_change_log_events", Map.of("container", "orders")))
                    .isEqualTo(writes);
            assertThat(metrics.sum("docmirror_store_change_log_bytes", Map.of("container", "orders"))).isPositive();

            assertThat(metrics.families()).contains("jvm_memory_used_bytes", "jvm_threads_current",
                    "jvm_gc_collection_seconds");
            assertThat(metrics.sum("jvm_memory_used_bytes", Map.of("area", "heap"))).isPositive();
        }
        finally {
            serve.destroy();
            assertThat(serve.waitFor(30, TimeUnit.SECONDS)).as("store serve stops on SIGTERM").isTrue();
        }
    }

    private static void upsertConcurrently(String base) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(WRITERS);
        try {
            List<Future<?>> writers = new ArrayList<>();
            for (int index = 0; index < WRITERS; index++) {
                int writer = index;
                writers.add(pool.submit(() -> {
                    try (StoreClient client = new HttpStoreClient(base, Optional.empty())) {
                        for (int n = 0; n < WRITES_EACH; n++) {
                            client.upsertItem("orders", "{\"id\":\"o-" + writer + "-" + n + "\",\"pk\":\"c" + n % 5
                                    + "\",\"total\":" + n + "}");
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> writer : writers) {
                writer.get();
            }
        }
        finally {
            pool.shutdownNow();
        }
    }

    private static String scrape(int port) throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(type ->
                assertThat(type).startsWith("text/plain; version=0.0.4"));
        return response.body();
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
