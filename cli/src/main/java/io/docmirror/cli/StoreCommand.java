package io.docmirror.cli;

import io.docmirror.feed.kafka.KafkaBridgeConfig;
import io.docmirror.feed.kafka.KafkaPublishers;
import io.docmirror.metrics.HttpRequestMetrics;
import io.docmirror.metrics.KafkaPublisherMetrics;
import io.docmirror.metrics.MetricsConfig;
import io.docmirror.metrics.MetricsServer;
import io.docmirror.metrics.StoreMetrics;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.StoreConfig;
import io.docmirror.store.server.RequestObserver;
import io.docmirror.store.server.StoreHttpServer;
import io.prometheus.metrics.model.registry.MultiCollector;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;

@Command(name = "store", mixinStandardHelpOptions = true, description = "The operational store.",
        subcommands = StoreCommand.Serve.class)
final class StoreCommand implements Runnable {
    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    @Command(name = "serve", mixinStandardHelpOptions = true,
            description = "Serve the store's HTTP API (docs/http-api.md) until stopped.")
    static final class Serve implements java.util.concurrent.Callable<Integer> {
        @Mixin
        DataDirOptions dataDir;

        @Option(names = "--port", paramLabel = "N", description = "Port (default: store.http.port, 8081; 0 picks one).")
        Integer port;

        @Option(names = "--bind", paramLabel = "ADDRESS",
                description = "Address (default: store.http.bind, 127.0.0.1; others need store.http.primary-key).")
        String bind;

        @Option(names = "--metrics-port", paramLabel = "N",
                description = "Also serve the store's Prometheus metrics at /metrics on this port (requests, latency, "
                        + "group commits, change-log size, the Kafka publishers, JVM; address: metrics.bind; 0 picks "
                        + "one). None without it.")
        Integer metricsPort;

        @Option(names = "--publish-kafka",
                description = "Also publish every mirrored container's changes to its Kafka topic (kafka.* options), "
                        + "exactly once, for mirrors that run with --source kafka.")
        boolean publishKafka;

        @Override
        public Integer call() throws Exception {
            StoreConfig config = dataDir.storeConfig();
            KafkaBridgeConfig kafka = dataDir.kafkaConfig();
            config = config.withHttp(bind != null ? bind : config.httpBind(), port != null ? port : config.httpPort());
            MetricsConfig metricsConfig = dataDir.metricsConfig();
            EmbeddedStore store = EmbeddedStore.open(dataDir.storeDirectory(), config);
            HttpRequestMetrics requests = new HttpRequestMetrics();
            StoreHttpServer server = StoreHttpServer.start(store, config,
                    metricsPort == null ? RequestObserver.NONE : requests);
            Optional<KafkaPublishers> publishers = publishKafka
                    ? Optional.of(KafkaPublishers.start(store, kafka)) : Optional.empty();
            List<MultiCollector> collectors = new ArrayList<>(List.of(new StoreMetrics(store), requests));
            publishers.ifPresent(running -> collectors.add(new KafkaPublisherMetrics(running, store,
                    Clock.systemUTC())));
            Optional<MetricsServer> metrics = metricsPort == null ? Optional.empty()
                    : MetricsOptions.start(metricsConfig.withPort(metricsPort), collectors, System.out);
            CountDownLatch stopped = new CountDownLatch(1);
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                publishers.ifPresent(KafkaPublishers::close);
                metrics.ifPresent(MetricsServer::close);
                server.close();
                store.close();
                stopped.countDown();
            }, "docmirror-shutdown"));
            System.out.println("Store API at " + server.baseUri() + "/containers (data: " + dataDir.data + ")"
                    + (publishKafka ? "; publishing mirrored containers to Kafka at " + kafka.bootstrapServers() : "")
                    + "; Ctrl-C stops it");
            System.out.flush();
            stopped.await();
            return ExitCodes.OK;
        }
    }
}
