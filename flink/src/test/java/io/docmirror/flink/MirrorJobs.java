package io.docmirror.flink;

import io.docmirror.store.ContainerProperties;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The job as the tests run it on Flink's MiniCluster: RocksDB state, checkpoints every 300 ms, restarts, writers that
 * compact their files often.
 */
final class MirrorJobs {
    private MirrorJobs() {
    }

    /** A MiniCluster of one task manager with four slots: room for four writers and the committer's chain. */
    static MiniClusterExtension miniCluster() {
        return new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
                .setNumberTaskManagers(1)
                .setNumberSlotsPerTaskManager(4)
                .build());
    }

    /**
     * Starts the job on the container's topic with {@code parallelism} writers, restored from {@code savepoint}
     * unless it is null; a new run unless restored.
     *
     * @param work where the checkpoints go
     */
    static JobClient start(Path work, String bootstrapServers, String topic, ContainerProperties container,
            Path mirror, int parallelism, String savepoint) throws Exception {
        return start(work, bootstrapServers, topic, container, mirror, parallelism, savepoint, Map.of());
    }

    /**
     * As {@link #start(Path, String, String, ContainerProperties, Path, int, String)}, with the job's {@code --conf}
     * options (say its catalog's, {@code mirror.catalog.*}) on top of the tests' own.
     */
    static JobClient start(Path work, String bootstrapServers, String topic, ContainerProperties container,
            Path mirror, int parallelism, String savepoint, Map<String, String> options) throws Exception {
        Map<String, String> settings = new HashMap<>(Map.of(
                "state.backend.type", "rocksdb",
                "execution.checkpointing.incremental", "true",
                "execution.checkpointing.dir", work.resolve("checkpoints").toUri().toString(),
                "execution.checkpointing.interval", "300 ms",
                "execution.checkpointing.mode", "EXACTLY_ONCE",
                "restart-strategy.type", "fixed-delay",
                "restart-strategy.fixed-delay.attempts", "5",
                "restart-strategy.fixed-delay.delay", "500 ms",
                "pipeline.max-parallelism", "128",
                // Every record type has a serializer of Flink's own: a fallback to Kryo fails at once.
                "pipeline.generic-types", "false"));
        if (savepoint != null) {
            settings.put("execution.state-recovery.path", savepoint);
        }
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(
                Configuration.fromMap(settings));
        env.setParallelism(parallelism);
        // The writers compact their files as soon as three of a size tier gather: often, in a test's few commits.
        Map<String, String> conf = new HashMap<>(Map.of("mirror.compaction.files", "3"));
        conf.putAll(options);
        new MirrorPipeline(bootstrapServers, topic, container, MirroredContainer.of(mirror.toString(), container.id(),
                conf, UUID.randomUUID().toString()), parallelism).addTo(env);
        return env.executeAsync("docmirror " + container.id());
    }

    /** Cancels the job unless it ended, and waits until it has. */
    static void stop(JobClient job) throws Exception {
        if (!job.getJobStatus().get(30, TimeUnit.SECONDS).isGloballyTerminalState()) {
            job.cancel().get(60, TimeUnit.SECONDS);
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (!job.getJobStatus().get(30, TimeUnit.SECONDS).isGloballyTerminalState()) {
            assertThat(System.nanoTime()).as("the job has stopped within 60 s").isLessThan(deadline);
            Thread.sleep(100);
        }
    }
}
