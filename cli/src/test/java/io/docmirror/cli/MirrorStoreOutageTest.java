package io.docmirror.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.docmirror.layout.ContainerSnapshot;
import io.docmirror.layout.MirrorLayout;
import io.docmirror.layout.MirrorSummary;
import io.docmirror.store.ChildProcesses;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.StoreConfig;
import io.docmirror.store.StoreTesting;
import io.docmirror.store.server.StoreHttpServer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code mirror run --store URL} follows a store served by another process. When that store stops and starts again
 * (same port, same data directory), the daemon waits the outage out at its last committed batch, shows it in
 * {@code status} and in its metrics, and mirrors what is written once the store is back.
 */
@Tag("slow")
class MirrorStoreOutageTest {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final String CONTAINER = "orders";

    @TempDir
    Path dir;

    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void theDaemonWaitsOutAStoreRestartAtItsLastCommitAndGoesOnWhenTheStoreIsBack() throws Exception {
        Path storeDirectory = dir.resolve("store-machine").resolve("store");
        Path mirrorData = dir.resolve("mirror-machine");
        StoreConfig config = StoreConfig.defaults().withSyncWrites(false);
        ServedStore served = ServedStore.start(storeDirectory, config, 0);
        String url = served.server.baseUri();
        int metricsPort = freePort();
        served.store.createContainer(ContainerProperties.of(CONTAINER, "/customerId").withAnalyticalTtl(-1));
        write(served.store, 0, 3);
        Process daemon = ChildProcesses.startJava(Docmirror.class.getName(),
                "Metrics (Prometheus): http://127.0.0.1:" + metricsPort + "/metrics",
                "mirror", "run", "--data", mirrorData.toString(), "--store", url,
                "--metrics-port", Integer.toString(metricsPort));
        try {
            StoreTesting.await("the daemon mirrors the first orders", WAIT, () -> rootRows(mirrorData),
                    rows -> rows == 3);
            long versionBefore = committedVersion(mirrorData);

            served.close();
            StoreTesting.await("the metrics show the outage", WAIT, () -> metrics(metricsPort), metrics ->
                    sample(metrics, "docmirror_mirror_source_unreachable_seconds") > 0
                            && sample(metrics, "docmirror_mirror_source_failures_total") >= 2);
            JsonNode during = status(mirrorData, url);
            assertThat(during.get("container").asText()).isEqualTo(CONTAINER);
            assertThat(during.get("storeUnreachable").asText()).contains("Cannot reach the store at " + url);
            assertThat(during.get("lagEvents").isNull()).isTrue();
            assertThat(during.get("batch").asLong()).isEqualTo(versionBefore);
            assertThat(daemon.isAlive()).as("the daemon waits for the store").isTrue();
            assertThat(committedVersion(mirrorData)).as("the mirror stays at its last commit").isEqualTo(versionBefore);
            String metricsDuring = metrics(metricsPort);
            assertThat(metricsDuring).doesNotContain("docmirror_mirror_lag_events{");
            assertThat(sample(metricsDuring, "docmirror_mirror_batch")).isEqualTo(versionBefore);
            // A one-shot sync does not wait: it fails at once and says what to do.
            assertThat(syncFails(dir.resolve("another-mirror"), url))
                    .contains("Cannot reach the store at " + url)
                    .contains("`mirror sync` does not wait for it");

            served = ServedStore.start(storeDirectory, config, URI.create(url).getPort());
            write(served.store, 3, 6);
            StoreTesting.await("the daemon mirrors the orders written after the restart", WAIT,
                    () -> rootRows(mirrorData), rows -> rows == 6);
            StoreTesting.await("the metrics show the store answering again", WAIT, () -> metrics(metricsPort),
                    metrics -> sample(metrics, "docmirror_mirror_source_unreachable_seconds") == 0);
            JsonNode after = status(mirrorData, url);
            assertThat(after.has("storeUnreachable")).isFalse();
            assertThat(after.get("lagEvents").asLong()).isZero();
            assertThat(daemon.isAlive()).isTrue();
        } finally {
            daemon.destroy();
            daemon.waitFor(30, TimeUnit.SECONDS);
            served.close();
        }
    }

    /** The store of a data directory, served over HTTP as {@code store serve} does. */
    private record ServedStore(EmbeddedStore store, StoreHttpServer server) implements AutoCloseable {
        static ServedStore start(Path directory, StoreConfig config, int port) throws IOException {
            EmbeddedStore store = EmbeddedStore.open(directory, config);
            return new ServedStore(store, StoreHttpServer.start(store, config.withHttp("127.0.0.1", port)));
        }

        @Override
        public void close() {
            server.close();
            store.close();
        }
    }

    private static void write(EmbeddedStore store, int from, int to) {
        for (int index = from; index < to; index++) {
            store.createItem(CONTAINER, "{\"id\":\"o" + index + "\",\"customerId\":\"c" + index % 2 + "\",\"total\":"
                    + index + "}");
        }
    }

    /** The container's committed tables (empty before the first batch), as the mirror's catalog has them now. */
    private static Optional<ContainerSnapshot> committed(Path mirrorData) {
        return ContainerSnapshot.read(MirrorLayout.mirrorDirectory(mirrorData), CONTAINER);
    }

    /** Rows in the root table's data files: the daemon only inserts here, so every order mirrored. */
    private static long rootRows(Path mirrorData) {
        return committed(mirrorData).map(tables -> Long.parseLong(tables.rootSnapshot().summary()
                .getOrDefault("total-records", "0"))).orElse(0L);
    }

    private static long committedVersion(Path mirrorData) {
        return committed(mirrorData).map(tables -> Long.parseLong(tables.rootSnapshot().summary()
                .get(MirrorSummary.BATCH))).orElse(0L);
    }

    /** {@code status --json} of the container, as a user on the mirror's machine asks for it. */
    private static JsonNode status(Path mirrorData, String url) throws IOException {
        PrintStream original = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            assertThat(Docmirror.run("status", "--data", mirrorData.toString(), "--store", url, "--json"))
                    .isEqualTo(ExitCodes.OK);
        } finally {
            System.setOut(original);
        }
        String output = captured.toString(StandardCharsets.UTF_8);
        JsonNode containers = new ObjectMapper().readTree(output.substring(output.indexOf('{'))).get("containers");
        assertThat(containers).as(output).hasSize(1);
        return containers.get(0);
    }

    /** {@code mirror sync --store URL}, which must fail; what it printed on stderr. */
    private static String syncFails(Path mirrorData, String url) {
        PrintStream original = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            assertThat(Docmirror.run("mirror", "sync", "--data", mirrorData.toString(), "--store", url))
                    .isEqualTo(ExitCodes.FAILURE);
        } finally {
            System.setErr(original);
        }
        return captured.toString(StandardCharsets.UTF_8);
    }

    private String metrics(int port) {
        try {
            return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
        } catch (IOException e) {
            return "no answer: " + e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while scraping the metrics", e);
        }
    }

    /** The value of a metric's sample for the container; -1 when there is none. */
    private static double sample(String metrics, String name) {
        Matcher matcher = Pattern.compile("(?m)^" + Pattern.quote(name) + "\\{container=\"" + CONTAINER
                + "\"} (\\S+)$").matcher(metrics);
        return matcher.find() ? Double.parseDouble(matcher.group(1)) : -1;
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
