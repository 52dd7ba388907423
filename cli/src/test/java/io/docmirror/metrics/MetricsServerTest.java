package io.docmirror.metrics;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.docmirror.demo.DemoDataset;
import io.docmirror.feed.derive.DerivationConfig;
import io.docmirror.feed.derive.DerivationRunner;
import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.layout.CatalogSettings;
import io.docmirror.mirror.ContainerStatus;
import io.docmirror.mirror.FeedMirror;
import io.docmirror.mirror.MirrorConfig;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.StoreConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

class MetricsServerTest {
    private static final Path EXAMPLE = Path.of("..", "docs", "examples", "customers-orders-items.yaml");
    private static final String SOURCE = DemoDataset.CONTAINER;

    @TempDir
    Path dir;

    @Test
    void servesTheLagAndActivityOfTheMirrorAndTheDerivationsAsStatusSeesThem() throws Exception {
        Path mirrorDirectory = dir.resolve("mirror");
        try (EmbeddedStore store = EmbeddedStore.open(dir.resolve("store"), StoreConfig.defaults());
                DerivationRunner runner = DerivationRunner.withDefaults(store, DerivationConfig.fromConfig(
                        new ObjectMapper(new YAMLFactory()).readTree(EXAMPLE.toFile()).path("derivations")));
                FeedMirror mirror = new FeedMirror(store, mirrorDirectory, MirrorConfig.defaults(),
                        FlattenerConfig::defaults, Clock.systemUTC())) {
            DemoDataset dataset = new DemoDataset(40);
            dataset.load(store, loaded -> { });
            runner.catchUp();
            mirror.sync();
            // Two orders that neither the derivation nor the mirror has seen yet.
            store.createItem(SOURCE, dataset.generator().order(1_000));
            store.createItem(SOURCE, dataset.generator().order(1_001));

            try (MetricsServer server = MetricsServer.startIfEnabled(MetricsConfig.defaults().withPort(0), List.of(
                    new MirrorMetrics(store, CatalogSettings.embedded(mirrorDirectory), mirror, Clock.systemUTC()),
                    new DerivationMetrics(runner))).orElseThrow()) {
                String metrics = get(server.metricsUri()).body();

                assertThat(sum(metrics, "docmirror_mirror_lag_events", "container=\"" + SOURCE + "\"")).isEqualTo(2);
                assertThat(count(metrics, "docmirror_mirror_lag_events", "container=\"" + SOURCE + "\""))
                        .isEqualTo(store.readContainer(SOURCE).logPartitions());
                assertThat(sum(metrics, "docmirror_mirror_lag_events", "container=\"Items\"")).isZero();
                assertThat(sum(metrics, "docmirror_mirror_events_total", "container=\"" + SOURCE + "\"")).isEqualTo(40);
                assertThat(sum(metrics, "docmirror_mirror_commits_total", "container=\"" + SOURCE + "\"")).isPositive();
                assertThat(sum(metrics, "docmirror_mirror_files_written_total", "container=\"Items\"")).isPositive();
                assertThat(sum(metrics, "docmirror_mirror_written_bytes_total", "container=\"Items\"")).isPositive();
                ContainerStatus status = ContainerStatus.of(mirrorDirectory, store, store.readContainer(SOURCE),
                        Clock.systemUTC());
                assertThat(sum(metrics, "docmirror_mirror_batch", "container=\"" + SOURCE + "\""))
                        .isEqualTo(status.batch());
                assertThat(sum(metrics, "docmirror_mirror_files", "container=\"" + SOURCE + "\""))
                        .isEqualTo(status.files());

                assertThat(sum(metrics, "docmirror_derivation_lag_events", "derivation=\"orders\"")).isEqualTo(2);
                assertThat(sum(metrics, "docmirror_derivation_events_total", "derivation=\"orders\"")).isEqualTo(40);
                assertThat(sum(metrics, "docmirror_derivation_documents_written_total", "derivation=\"orders\""))
                        .isGreaterThan(80);
                assertThat(sum(metrics, "docmirror_derivation_errors", "derivation=\"orders\"")).isZero();

                HttpResponse<String> health = get(server.metricsUri().resolve("/-/healthy"));
                assertThat(health.statusCode()).isEqualTo(200);
            }
        }
    }

    @Test
    void nothingIsServedWhenMetricsAreTurnedOff() {
        Optional<MetricsServer> server = MetricsServer.startIfEnabled(
                MetricsConfig.fromProperties(java.util.Map.of("metrics.enabled", "false")), List.of());

        assertThat(server).isEmpty();
    }

    private static HttpResponse<String> get(URI uri) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(uri).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** The sum of the samples of {@code metric} whose labels contain {@code label}. */
    private static double sum(String metrics, String metric, String label) {
        return samples(metrics, metric, label).mapToDouble(Double::parseDouble).sum();
    }

    private static long count(String metrics, String metric, String label) {
        return samples(metrics, metric, label).count();
    }

    private static java.util.stream.Stream<String> samples(String metrics, String metric, String label) {
        Pattern sample = Pattern.compile("^" + Pattern.quote(metric) + "\\{([^}]*)\\} (\\S+)$");
        return metrics.lines().map(sample::matcher).filter(Matcher::matches)
                .filter(matcher -> matcher.group(1).contains(label)).map(matcher -> matcher.group(2));
    }
}
