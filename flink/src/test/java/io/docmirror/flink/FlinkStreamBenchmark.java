package io.docmirror.flink;

import io.docmirror.feed.kafka.ChangeEnvelope;
import io.docmirror.feed.kafka.KafkaBridgeConfig;
import io.docmirror.feed.kafka.KafkaBroker;
import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.mirror.FeedMirror;
import io.docmirror.mirror.MirrorConfig;
import io.docmirror.mirror.source.KafkaTopicSource;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.changelog.ChangeEvent;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.client.JobCancellationException;
import org.apache.flink.util.ExceptionUtils;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * The Flink job against {@code mirror run}'s engine on one workload, in one run on this machine (issue 45): the
 * changes a second each sustains catching up a topic of {@code changes} from empty tables ({@code mirror run}, the
 * job at parallelism 1 and at 2, each on Flink's MiniCluster in this JVM), with the CPU this process spent on each;
 * then the freshness of each change published at a fixed rate, for {@code mirror run} and the job at parallelism 2.
 *
 * <p>The workload is published once into a topic of a real broker (its own JVM), as the store's publisher writes a
 * container's topic: half creates of generated orders, then upserts of orders drawn at random from those. A run is
 * caught up when the root table's last commit holds the topic's end offsets.
 *
 * <p>Usage: {@code FlinkStreamBenchmark <changes> <workDir> [checkpoint interval ms] [fixed rate, changes/s]
 * [seconds at that rate] [rounds]} (defaults: 200000, a temporary directory, 1000, 2000, 30, 2). Each round has each
 * engine catch up the topic from empty tables; the freshness is measured on the last round's tables.
 */
public final class FlinkStreamBenchmark {
    private static final String CONTAINER = "orders";
    private static final String TOPIC = KafkaBridgeConfig.TOPIC_PREFIX.defaultValue().orElseThrow() + CONTAINER;
    private static final int TOPIC_PARTITIONS = 4;
    /** Changes generated and published at a time, so the workload's documents are not all in memory twice. */
    private static final int PUBLISH_CHUNK = 10_000;
    private static final Duration CATCH_UP_LIMIT = Duration.ofMinutes(20);
    /** How often a catch-up reads the root table: seldom enough to cost this process little of the CPU it counts. */
    private static final Duration CATCH_UP_POLL = Duration.ofMillis(100);
    /**
     * Neither engine compacts while it is measured: the job does not compact yet, and whether a compaction of
     * {@code mirror run}'s falls due within a run is chance that swings its rate (as in FreshnessBenchmark).
     */
    private static final MirrorConfig MIRROR_RUN_CONFIG = MirrorConfig.defaults()
            .withCompaction(0, MirrorConfig.defaults().keepSnapshotsFor());

    private final ContainerProperties container = new ContainerProperties(CONTAINER, "/pk", null, -1,
            TOPIC_PARTITIONS, "rid-bench", null, null);
    private final Path work;
    private final Duration checkpointInterval;
    private final PrintStream out;

    FlinkStreamBenchmark(Path work, Duration checkpointInterval, PrintStream out) {
        this.work = work;
        this.checkpointInterval = checkpointInterval;
        this.out = out;
    }

    public static void main(String[] args) throws Exception {
        int changes = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
        Path parent = args.length > 1 ? Files.createDirectories(Path.of(args[1]))
                : Files.createTempDirectory("docmirror-flink-bench");
        Duration checkpointInterval = Duration.ofMillis(args.length > 2 ? Long.parseLong(args[2]) : 1000);
        int rate = args.length > 3 ? Integer.parseInt(args[3]) : 2000;
        Duration atRate = Duration.ofSeconds(args.length > 4 ? Long.parseLong(args[4]) : 30);
        int rounds = args.length > 5 ? Integer.parseInt(args[5]) : 2;
        // A directory of its own: each engine must start from empty tables.
        Path work = Files.createTempDirectory(parent, "run-");
        new FlinkStreamBenchmark(work, checkpointInterval, System.out).run(changes, rounds, rate, atRate);
    }

    /** The figures of one run, for a caller that checks them (the smoke test). */
    record Result(CatchUp mirrorRun, CatchUp parallelism1, CatchUp parallelism2, Freshness mirrorRunFreshness,
            Freshness parallelism2Freshness) {
    }

    /**
     * @param rounds how many times each engine catches up the topic, each time from empty tables: the first round
     *     includes this JVM's warming up (its JIT compiling Iceberg's, Parquet's and Flink's code), later ones do not
     */
    Result run(int changes, int rounds, int rate, Duration atRate) throws Exception {
        out.printf(Locale.ROOT, "load before: %s; %d cores; checkpoints every %d ms; work in %s%n", loadAverage(),
                Runtime.getRuntime().availableProcessors(), checkpointInterval.toMillis(), work);
        Result result;
        try (KafkaBroker broker = KafkaBroker.start(work.resolve("kafka"));
             ContainerTopic topic = new ContainerTopic(broker, TOPIC);
             Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                     broker.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic(TOPIC, TOPIC_PARTITIONS, (short) 1))).all()
                    .get(60, TimeUnit.SECONDS);
            ChangeEnvelope envelope = new ChangeEnvelope(KafkaBridgeConfig.defaults(broker.bootstrapServers()),
                    container);
            OrdersWorkload workload = new OrdersWorkload(container);
            long publishStart = System.nanoTime();
            int creates = changes / 2;
            for (int published = 0; published < changes; published += PUBLISH_CHUNK) {
                int chunk = Math.min(PUBLISH_CHUNK, changes - published);
                int chunkCreates = Math.max(0, Math.min(chunk, creates - published));
                List<ChangeEvent> events = new ArrayList<>(workload.creates(chunkCreates));
                events.addAll(workload.upserts(chunk - chunkCreates));
                topic.publish(envelope, events);
            }
            Map<String, Long> end = endOffsets(admin);
            out.printf(Locale.ROOT, "published %,d changes (%,d creates of orders, then upserts of random ones) into "
                            + "%s (%d partitions) in %.1f s%n", changes, creates, TOPIC, TOPIC_PARTITIONS,
                    seconds(System.nanoTime() - publishStart));

            Engine mirrorRun = new MirrorRunEngine(broker.bootstrapServers());
            Engine flink1 = new FlinkEngine(broker.bootstrapServers(), 1);
            Engine flink2 = new FlinkEngine(broker.bootstrapServers(), 2);
            CatchUp ofMirrorRun = null;
            CatchUp ofParallelism1 = null;
            CatchUp ofParallelism2 = null;
            for (int round = 1; round <= rounds; round++) {
                out.printf(Locale.ROOT, "round %d of %d, each engine from empty tables:%n", round, rounds);
                ofMirrorRun = catchUp(mirrorRun, mirror(mirrorRun, round), end, changes);
                ofParallelism1 = catchUp(flink1, mirror(flink1, round), end, changes);
                ofParallelism2 = catchUp(flink2, mirror(flink2, round), end, changes);
                out.printf(Locale.ROOT, "round %d ratios: parallelism 2 / parallelism 1 = %.2f (target >= 1.6); "
                                + "parallelism 1 / mirror run = %.2f (target >= 0.7)%n", round,
                        ofParallelism2.sustained() / ofParallelism1.sustained(),
                        ofParallelism1.sustained() / ofMirrorRun.sustained());
            }

            FreshnessRun freshness = new FreshnessRun(topic, envelope, workload, admin, rate, atRate);
            Freshness ofMirrorRunFreshness = freshness.measure(mirrorRun, mirror(mirrorRun, rounds));
            Freshness ofParallelism2Freshness = freshness.measure(flink2, mirror(flink2, rounds));
            result = new Result(ofMirrorRun, ofParallelism1, ofParallelism2, ofMirrorRunFreshness,
                    ofParallelism2Freshness);
        }
        out.printf(Locale.ROOT, "load after: %s%n", loadAverage());
        return result;
    }

    /**
     * One engine catching up the topic from empty tables.
     *
     * @param sustained changes a second after the first commit (the engine's start left out: the job's deployment
     *     takes seconds a long-running job pays once)
     * @param fromStart changes a second from the engine's start
     * @param cpuSeconds CPU seconds of this process from the engine's start to its last commit
     */
    record CatchUp(String engine, long changes, double sustained, double fromStart, double cpuSeconds) {
    }

    private CatchUp catchUp(Engine engine, Path mirrorDirectory, Map<String, Long> end, long changes)
            throws Exception {
        Path mirror = Files.createDirectories(mirrorDirectory);
        ThreadCpu threadsBefore = ThreadCpu.now();
        long cpuBefore = processCpuNanos();
        long brokerBefore = childrenCpuNanos();
        long startedAt = System.nanoTime();
        try (Running running = engine.start(mirror)) {
            CommittedOffsets seen = CommittedOffsets.NONE;
            long firstCommitAt = 0;
            long firstCommitChanges = 0;
            long deadline = startedAt + CATCH_UP_LIMIT.toNanos();
            while (!seen.reach(end)) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(engine.name() + " did not catch up within " + CATCH_UP_LIMIT
                            + ": its last commit holds offsets " + seen.offsets() + " of " + end);
                }
                running.requireAlive();
                Thread.sleep(CATCH_UP_POLL.toMillis());
                CommittedOffsets now = CommittedOffsets.read(mirror, CONTAINER);
                if (firstCommitAt == 0 && now.metadata() != null) {
                    firstCommitAt = System.nanoTime();
                    firstCommitChanges = now.records();
                }
                seen = now;
            }
            long doneAt = System.nanoTime();
            long cpuNanos = processCpuNanos() - cpuBefore;
            ThreadCpu threads = ThreadCpu.now().since(threadsBefore);
            double cpu = seconds(cpuNanos);
            double fromStart = changes / seconds(doneAt - startedAt);
            double sustained = firstCommitChanges < changes
                    ? (changes - firstCommitChanges) / seconds(doneAt - firstCommitAt)
                    : fromStart;
            out.printf(Locale.ROOT, "%-22s caught up %,d changes: %,8.0f changes/s after its first commit (which held "
                            + "%,d, %.1f s after the start); %,8.0f changes/s from the start (%.1f s); %d commits; "
                            + "%.1f CPU s in this process (%.2f cores; %,.0f changes a CPU second), %.1f CPU s in the "
                            + "broker%n", engine.name(), changes, sustained, firstCommitChanges,
                    seconds(firstCommitAt - startedAt), fromStart, seconds(doneAt - startedAt), seen.commits(), cpu,
                    cpu / seconds(doneAt - startedAt), changes / cpu, seconds(childrenCpuNanos() - brokerBefore));
            out.printf(Locale.ROOT, "    CPU s by thread (and s waiting runnable for a core): %s%n", threads.describe(cpuNanos, 8));
            return new CatchUp(engine.name(), changes, sustained, fromStart, cpu);
        }
    }

    /** Freshness at a fixed rate; latencies in milliseconds. */
    record Freshness(String engine, int rate, double achievedRate, long changes, double p50, double p99,
            double max) {
    }

    /** Publishes upserts at a fixed rate while an engine runs, and times each from its send to its commit. */
    private final class FreshnessRun {
        private final ContainerTopic topic;
        private final ChangeEnvelope envelope;
        private final OrdersWorkload workload;
        private final Admin admin;
        private final int rate;
        private final Duration duration;

        FreshnessRun(ContainerTopic topic, ChangeEnvelope envelope, OrdersWorkload workload, Admin admin, int rate,
                Duration duration) {
            this.topic = topic;
            this.envelope = envelope;
            this.workload = workload;
            this.admin = admin;
            this.rate = rate;
            this.duration = duration;
        }

        /**
         * Starts {@code engine} again on its caught-up tables, waits until they hold the topic's end (what was
         * published since they caught up), then publishes at the rate.
         */
        Freshness measure(Engine engine, Path mirror) throws Exception {
            try (Running running = engine.start(mirror)) {
                Map<String, Long> end = endOffsets(admin);
                long deadline = System.nanoTime() + CATCH_UP_LIMIT.toNanos();
                while (!CommittedOffsets.read(mirror, CONTAINER).reach(end)) {
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException(engine.name() + " restarted did not reach " + end
                                + " within " + CATCH_UP_LIMIT);
                    }
                    running.requireAlive();
                    Thread.sleep(CATCH_UP_POLL.toMillis());
                }
                FreshnessWatcher watcher = new FreshnessWatcher(mirror, CONTAINER, TOPIC);
                Thread watching = new Thread(watcher, "freshness-watcher");
                watching.start();
                AtomicReference<Exception> failedSend = new AtomicReference<>();
                long startedAt = System.nanoTime();
                long endAt = startedAt + duration.toNanos();
                long sent = 0;
                try {
                    while (System.nanoTime() < endAt) {
                        long due = (System.nanoTime() - startedAt) * rate / 1_000_000_000L;
                        if (sent >= due) {
                            // Not a spin: on two cores the engine must have its share.
                            LockSupport.parkNanos(100_000);
                            continue;
                        }
                        ChangeEvent event = workload.upserts(1).get(0);
                        long sentAt = System.nanoTime();
                        topic.send(envelope, event, (metadata, e) -> {
                            if (e != null) {
                                failedSend.compareAndSet(null, e);
                            } else {
                                watcher.sent(metadata.partition(), metadata.offset(), sentAt);
                            }
                        });
                        sent++;
                    }
                    double achieved = sent / seconds(System.nanoTime() - startedAt);
                    topic.flush();
                    if (failedSend.get() != null) {
                        throw new IllegalStateException("A change could not be published", failedSend.get());
                    }
                    long[] latencies = watcher.awaitAll(sent, CATCH_UP_LIMIT);
                    Freshness freshness = new Freshness(engine.name(), rate, achieved, sent,
                            percentile(latencies, 0.50), percentile(latencies, 0.99),
                            latencies[latencies.length - 1] / 1e6);
                    out.printf(Locale.ROOT, "%-22s freshness at %,d changes/s (achieved %,.0f) for %d s: %,d changes,"
                                    + " p50 %.0f ms, p99 %.0f ms, max %.0f ms%n", engine.name(), rate, achieved,
                            duration.toSeconds(), sent, freshness.p50(), freshness.p99(), freshness.max());
                    return freshness;
                } finally {
                    watching.interrupt();
                    watching.join();
                }
            }
        }
    }

    /** The engine's mirror directory in {@code round}. */
    private Path mirror(Engine engine, int round) {
        return work.resolve("round-" + round).resolve(engine.name().replaceAll("[^a-z0-9]+", "-"));
    }

    /** What mirrors the topic into a mirror directory until it is closed. */
    private interface Engine {
        String name();

        /** Starts mirroring the topic into {@code mirror}, from the tables' last commit. */
        Running start(Path mirror) throws Exception;
    }

    private interface Running extends AutoCloseable {
        /** @throws IllegalStateException when the engine failed, with its failure */
        void requireAlive() throws Exception;
    }

    /** {@code mirror run --source kafka}'s engine: the mirror's daemon reading the topic, on a thread of its own. */
    private final class MirrorRunEngine implements Engine {
        private final String bootstrapServers;

        MirrorRunEngine(String bootstrapServers) {
            this.bootstrapServers = bootstrapServers;
        }

        @Override
        public String name() {
            return "mirror run";
        }

        @Override
        public Running start(Path mirror) {
            FeedMirror feedMirror = new FeedMirror(() -> List.of(container),
                    KafkaTopicSource.opener(KafkaBridgeConfig.defaults(bootstrapServers)), mirror, MIRROR_RUN_CONFIG,
                    FlattenerConfig::defaults, Clock.systemUTC());
            AtomicReference<RuntimeException> failure = new AtomicReference<>();
            Thread daemon = new Thread(() -> {
                try {
                    feedMirror.run();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } catch (RuntimeException e) {
                    failure.set(e);
                }
            }, "mirror-daemon");
            daemon.start();
            return new Running() {
                @Override
                public void requireAlive() {
                    if (failure.get() != null) {
                        throw new IllegalStateException("mirror run failed", failure.get());
                    }
                }

                @Override
                public void close() throws InterruptedException {
                    feedMirror.stop();
                    daemon.join();
                    feedMirror.close();
                    requireAlive();
                }
            };
        }
    }

    /** The Flink job on a MiniCluster of its own in this JVM, with RocksDB state and aligned checkpoints. */
    private final class FlinkEngine implements Engine {
        private final String bootstrapServers;
        private final int parallelism;

        FlinkEngine(String bootstrapServers, int parallelism) {
            this.bootstrapServers = bootstrapServers;
            this.parallelism = parallelism;
        }

        @Override
        public String name() {
            return "flink parallelism " + parallelism;
        }

        @Override
        public Running start(Path mirror) throws Exception {
            Map<String, String> settings = Map.of(
                    "state.backend.type", "rocksdb",
                    "execution.checkpointing.incremental", "true",
                    "execution.checkpointing.dir", Files.createDirectories(mirror.resolveSibling(
                            mirror.getFileName() + "-checkpoints")).toUri().toString(),
                    "execution.checkpointing.interval", checkpointInterval.toMillis() + " ms",
                    "execution.checkpointing.mode", "EXACTLY_ONCE",
                    // A restart would measure recovery, not the stream: a failure ends the benchmark.
                    "restart-strategy.type", "none",
                    "pipeline.max-parallelism", "128",
                    "pipeline.generic-types", "false");
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(
                    Configuration.fromMap(settings));
            env.setParallelism(parallelism);
            new MirrorPipeline(bootstrapServers, TOPIC, container, MirroredContainer.of(mirror.toString(), CONTAINER,
                    Map.of(), UUID.randomUUID().toString()), parallelism).addTo(env);
            JobClient job = env.executeAsync("docmirror " + CONTAINER + " benchmark");
            return new Running() {
                @Override
                public void requireAlive() throws Exception {
                    if (job.getJobStatus().get(30, TimeUnit.SECONDS).isGloballyTerminalState()) {
                        job.getJobExecutionResult().get(30, TimeUnit.SECONDS);
                        throw new IllegalStateException(name() + " ended before it caught up");
                    }
                }

                @Override
                public void close() throws Exception {
                    // The job's MiniCluster shuts down with the job: its result is the one thing left to ask.
                    job.cancel().get(60, TimeUnit.SECONDS);
                    try {
                        job.getJobExecutionResult().get(60, TimeUnit.SECONDS);
                    } catch (ExecutionException e) {
                        if (ExceptionUtils.findThrowable(e, JobCancellationException.class).isEmpty()) {
                            throw e;
                        }
                    }
                }
            };
        }
    }

    /** The topic's end: the next offset of each partition, keyed as the mirror's checkpoint keys them. */
    private static Map<String, Long> endOffsets(Admin admin) throws Exception {
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        for (int partition = 0; partition < TOPIC_PARTITIONS; partition++) {
            latest.put(new TopicPartition(TOPIC, partition), OffsetSpec.latest());
        }
        Map<String, Long> end = new HashMap<>();
        admin.listOffsets(latest).all().get(60, TimeUnit.SECONDS)
                .forEach((partition, offset) -> end.put(partition.toString(), offset.offset()));
        return end;
    }

    static double percentile(long[] sorted, double quantile) {
        return sorted[(int) Math.min(sorted.length - 1, Math.floor(quantile * sorted.length))] / 1e6;
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    /** CPU of this process's children: the Kafka broker's JVM. */
    private static long childrenCpuNanos() {
        return ProcessHandle.current().children()
                .mapToLong(child -> child.info().totalCpuDuration().map(Duration::toNanos).orElse(0L))
                .sum();
    }

    private static String loadAverage() throws IOException {
        return "load average " + Files.readString(Path.of("/proc/loadavg")).trim();
    }

    private static double seconds(long nanos) {
        return nanos / 1e9;
    }
}
