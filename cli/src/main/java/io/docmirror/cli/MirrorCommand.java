package io.docmirror.cli;

import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.metrics.MetricsConfig;
import io.docmirror.metrics.MetricsServer;
import io.docmirror.metrics.MirrorMetrics;
import io.docmirror.mirror.FeedMirror;
import io.docmirror.mirror.MirrorConfig;
import io.docmirror.mirror.MirrorErrorCode;
import io.prometheus.metrics.model.registry.MultiCollector;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.function.Function;

@Command(name = "mirror", mixinStandardHelpOptions = true,
        description = "Keep Parquet tables of every mirrored container (analytical TTL set) in step with the store.",
        subcommands = {MirrorCommand.Sync.class, MirrorCommand.Run.class})
final class MirrorCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    @Command(name = "sync", mixinStandardHelpOptions = true,
            description = {"Catch up with the store's change feed (or its Kafka topics), commit, and exit (for batch "
                    + "jobs and scripts).",
                    "A container that cannot be mirrored is reported and the others are mirrored all the same (exit "
                            + "1). A store or broker that does not answer fails the sync at once, leaving each "
                            + "container at its last commit: run it again, or run `mirror run`, which waits."})
    static final class Sync implements Callable<Integer> {
        @Spec
        CommandSpec spec;

        @Mixin
        DataDirOptions dataDir;

        @Mixin
        MirrorSourceOptions source;

        @Override
        public Integer call() {
            // Configuration errors come before anything is opened or created.
            MirrorConfig config = dataDir.mirrorConfig();
            Function<String, FlattenerConfig> flattenerConfigs = dataDir.flattenerConfigs();
            try (MirrorSourceOptions.Opened opened = source.open(dataDir);
                 FeedMirror mirror = opened.mirror(dataDir, config, flattenerConfigs, Clock.systemUTC())) {
                FeedMirror.SyncResult result = mirror.sync();
                System.out.printf("Mirrored %s to %s%n", result.describe(), dataDir.mirrorDirectory());
            } catch (RuntimeException e) {
                if (MirrorErrorCode.of(e) != MirrorErrorCode.SOURCE_UNAVAILABLE) {
                    throw e;
                }
                return unavailable(e);
            }
            return ExitCodes.OK;
        }

        /** A one-shot sync does not wait for the store or broker (the daemon does): it says so and fails. */
        private int unavailable(RuntimeException failure) {
            spec.commandLine().getErr().println("docmirror: " + failure.getMessage() + ". `mirror sync` does not "
                    + "wait for it: every container stays at its last commit; run the sync again once it answers, "
                    + "or run `mirror run`, which waits.");
            return ExitCodes.FAILURE;
        }
    }

    @Command(name = "run", mixinStandardHelpOptions = true,
            description = {"The streaming daemon: mirror changes as they come until stopped (Ctrl-C commits what it "
                    + "holds and exits).",
                    "A store or broker that does not answer (a restart, say) is waited out, each container at its "
                            + "last commit; a container that cannot be mirrored is retried while the others go on. "
                            + "Both show in the metrics."})
    static final class Run implements Callable<Integer> {
        @Mixin
        DataDirOptions dataDir;

        @Mixin
        MirrorSourceOptions source;

        @Mixin
        MetricsOptions metrics;

        @Override
        public Integer call() throws InterruptedException {
            MirrorConfig config = dataDir.mirrorConfig();
            Function<String, FlattenerConfig> flattenerConfigs = dataDir.flattenerConfigs();
            MetricsConfig metricsConfig = metrics.config(dataDir);
            MirrorSourceOptions.Opened opened = source.open(dataDir);
            FeedMirror mirror = opened.mirror(dataDir, config, flattenerConfigs, Clock.systemUTC());
            CountDownLatch finished = new CountDownLatch(1);
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                mirror.stop();
                try {
                    finished.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "docmirror-shutdown"));
            Optional<MetricsServer> metricsServer = Optional.empty();
            try {
                metricsServer = MetricsOptions.start(metricsConfig,
                        // The lag is measured against the store's change log; a Cosmos DB account has none to ask.
                        opened.store().map(store -> List.<MultiCollector>of(new MirrorMetrics(store,
                                dataDir.catalogSettings(), mirror, Clock.systemUTC()))).orElse(List.of()),
                        System.out);
                System.out.println("Mirroring " + opened.describe() + " to "
                        + dataDir.mirrorDirectory() + "; Ctrl-C stops");
                System.out.flush();
                mirror.run();
            } finally {
                try {
                    metricsServer.ifPresent(MetricsServer::close);
                    mirror.close();
                    opened.close();
                } finally {
                    // Whatever closing threw: a shutdown hook waits for this, and would hold the JVM forever.
                    finished.countDown();
                }
            }
            return ExitCodes.OK;
        }
    }
}
