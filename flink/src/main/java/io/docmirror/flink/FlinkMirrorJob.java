package io.docmirror.flink;

import io.docmirror.feed.kafka.KafkaBridgeConfig;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.http.HttpStoreClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.Callable;

/**
 * The Flink job's main class, for {@code flink run}: streams one container's Kafka topic into its Iceberg tables.
 * The cluster's settings (state backend, checkpoints, restarts) are Flink's own; the job needs checkpoints on, aligned.
 */
@Command(name = "docmirror-flink", mixinStandardHelpOptions = true,
        description = "Streams a container's Kafka topic into the mirror's Iceberg tables with parallel writers keyed "
                + "by document and one committer, one commit per Flink checkpoint.")
public final class FlinkMirrorJob implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--mirror", required = true, paramLabel = "DIR",
            description = "The mirror's directory (its catalog and the container's directory).")
    Path mirror;

    @Option(names = "--container", required = true, paramLabel = "NAME", description = "The container to mirror.")
    String container;

    @Option(names = "--store", required = true, paramLabel = "URL",
            description = "The store's HTTP API, for the container's properties (its _rid and feed ranges).")
    String store;

    @Option(names = "--store-key-env", paramLabel = "NAME",
            description = "The environment variable holding the store's key, when it needs one.")
    String storeKeyEnv;

    @Option(names = "--kafka", required = true, paramLabel = "SERVERS", description = "Kafka's bootstrap servers.")
    String kafka;

    @Option(names = "--topic-prefix", paramLabel = "PREFIX",
            description = "A container's changes are in topic <prefix><container> (default: ${DEFAULT-VALUE}).")
    String topicPrefix = KafkaBridgeConfig.TOPIC_PREFIX.defaultValue().orElseThrow();

    @Option(names = "--conf", paramLabel = "KEY=VALUE",
            description = "A mirror.* or flatten.* option of docmirror's configuration (docs/configuration.md), as "
                    + "the mirror's daemon has it (the catalog, the warehouse); repeatable.")
    Map<String, String> options = new TreeMap<>();

    @Option(names = "--parallelism", defaultValue = "1", paramLabel = "N", description = "How many writers.")
    int parallelism;

    public static void main(String[] args) {
        System.exit(new CommandLine(new FlinkMirrorJob()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        if (!Files.isDirectory(mirror)) {
            throw new ParameterException(spec.commandLine(),
                    "--mirror " + mirror + ": no such directory");
        }
        if (parallelism < 1) {
            throw new ParameterException(spec.commandLine(),
                    "--parallelism " + parallelism + ": the job needs at least one writer");
        }
        MirroredContainer mirrored;
        try {
            // A restored job takes its run back from its state: this one names a first start.
            mirrored = MirroredContainer.of(mirror.toAbsolutePath().toString(), container, options,
                    UUID.randomUUID().toString());
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--conf " + e.getMessage());
        }
        ContainerProperties properties;
        try (HttpStoreClient client = new HttpStoreClient(store, Optional.ofNullable(storeKeyEnv).map(System::getenv))) {
            properties = client.readContainer(container);
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        new MirrorPipeline(kafka, topicPrefix + container, properties, mirrored, parallelism).addTo(env);
        env.execute("docmirror " + container);
        return CommandLine.ExitCode.OK;
    }
}
