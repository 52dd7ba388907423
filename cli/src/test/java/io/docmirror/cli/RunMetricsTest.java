package io.docmirror.cli;

import io.docmirror.store.ContainerProperties;
import io.docmirror.store.PartitionKey;
import io.docmirror.store.StoreClient;
import io.docmirror.store.http.HttpStoreClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code docmirror run}, run as a process, serves the store's metrics on its one metrics endpoint, as
 * {@code store serve --metrics-port} does: a scrape after writes and reads over the store's HTTP API counts them by
 * route and status, with their latency, the group commits that made them durable and the change log they wrote,
 * beside the SQL endpoint's and the JVM's metrics.
 */
class RunMetricsTest {
    private static final String ITEMS = "/containers/{container}/items";
    private static final String ITEM = "/containers/{container}/items/{id}";
    private static final Pattern STORE_LINE = Pattern.compile("Store HTTP API: (http://[^ ]+)/containers");
    private static final Pattern METRICS_LINE = Pattern.compile("Metrics \\(Prometheus\\): (http://[^ ]+/metrics)");
    private static final int WRITES = 25;
    /** Generous: the first mirror sync, the SQL endpoint and the Flight server start before the metrics line. */
    private static final Duration START_DEADLINE = Duration.ofMinutes(2);

    @TempDir
    Path dir;

    @Test
    void theMetricsEndpointOfRunHasTheStoresSeries() throws Exception {
        Path errors = Files.createTempFile(dir, "run-", ".stderr");
        Process run = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx512m", "--add-opens=java.base/java.nio=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                Docmirror.class.getName(), "run", "--data", dir.resolve("data").toString(), "--port", "0",
                "--sql-port", "0", "--metrics-port", "0")
                .redirectError(errors.toFile()).start();
        try {
            BlockingQueue<String> lines = readLines(run);
            String storeUri = awaitLine(lines, STORE_LINE, errors);
            String metricsUri = awaitLine(lines, METRICS_LINE, errors);
            try (StoreClient client = new HttpStoreClient(storeUri, Optional.empty())) {
                client.createContainer(ContainerProperties.of("orders", "/pk"));
                for (int n = 0; n < WRITES; n++) {
                    client.upsertItem("orders",
                            "{\"id\":\"o-" + n + "\",\"pk\":\"c" + n % 5 + "\",\"total\":" + n + "}");
                }
                assertThat(client.findItem("orders", PartitionKey.of("c1"), "o-1")).isPresent();
                assertThat(client.findItem("orders", PartitionKey.of("c1"), "missing")).isEmpty();
            }

            PrometheusText metrics = PrometheusText.parse(scrape(metricsUri));

            assertThat(metrics.sum("docmirror_store_http_requests_total",
                    Map.of("method", "POST", "route", ITEMS, "status", "201"))).as("upserts that created their items")
                    .isEqualTo(WRITES);
            assertThat(metrics.sum("docmirror_store_http_requests_total",
                    Map.of("method", "GET", "route", ITEM, "status", "200"))).isEqualTo(1);
            assertThat(metrics.sum("docmirror_store_http_requests_total",
                    Map.of("method", "GET", "route", ITEM, "status", "404"))).isEqualTo(1);
            assertThat(metrics.sum("docmirror_store_http_request_duration_seconds_count",
                    Map.of("method", "POST", "route", ITEMS))).isEqualTo(WRITES);
            assertThat(metrics.type("docmirror_store_group_commit_size")).isEqualTo("histogram");
            assertThat(metrics.sum("docmirror_store_group_commit_size_sum", Map.of()))
                    .as("writes made durable by group commits").isGreaterThanOrEqualTo(WRITES);
            assertThat(metrics.sum("docmirror_store_change_log_events", Map.of("container", "orders")))
                    .isEqualTo(WRITES);
            assertThat(metrics.families()).as("the SQL endpoint's and the JVM's metrics stay")
                    .contains("docmirror_sql_queries_total", "jvm_memory_used_bytes");
        }
        finally {
            run.destroy();
            assertThat(run.waitFor(60, TimeUnit.SECONDS)).as("run stops on SIGTERM").isTrue();
        }
    }

    /** The process's standard output, line by line, read on a thread of its own so that it never blocks. */
    private static BlockingQueue<String> readLines(Process process) {
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    lines.add(line);
                }
            } catch (IOException e) {
                lines.add("(reading standard output failed: " + e + ")");
            }
        }, "run-stdout");
        reader.setDaemon(true);
        reader.start();
        return lines;
    }

    /** The first group of the first line matching {@code pattern}; fails with every line seen and the errors. */
    private static String awaitLine(BlockingQueue<String> lines, Pattern pattern, Path errors) throws Exception {
        List<String> seen = new ArrayList<>();
        long deadline = System.nanoTime() + START_DEADLINE.toNanos();
        while (System.nanoTime() < deadline) {
            String line = lines.poll(1, TimeUnit.SECONDS);
            if (line == null) {
                continue;
            }
            seen.add(line);
            Matcher matcher = pattern.matcher(line);
            if (matcher.find()) {
                return matcher.group(1);
            }
        }
        throw new AssertionError("run printed no line matching " + pattern + " within " + START_DEADLINE
                + "; it printed:\n" + String.join("\n", seen) + "\nstandard error:\n" + Files.readString(errors));
    }

    private static String scrape(String metricsUri) throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create(metricsUri)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        return response.body();
    }
}
