package io.docmirror.cli;

import io.docmirror.feed.derive.Derivation;
import io.docmirror.feed.derive.DerivationRunner;
import io.docmirror.metrics.DerivationMetrics;
import io.docmirror.metrics.MetricsConfig;
import io.docmirror.metrics.MetricsServer;
import io.docmirror.feed.derive.DerivationStatus;
import io.docmirror.store.EmbeddedStore;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

@Command(name = "derive", mixinStandardHelpOptions = true,
        description = "Keep the derived containers the config file declares (derivations: controlled redundancy).",
        subcommands = {DeriveCommand.Sync.class, DeriveCommand.Run.class})
final class DeriveCommand implements Runnable {
    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** The configured derivations; an error when there are none, since the command would do nothing. */
    private static List<Derivation> derivations(DataDirOptions dataDir) {
        List<Derivation> derivations = dataDir.derivations();
        if (derivations.isEmpty()) {
            throw new IllegalArgumentException("No derivations configured: give --config FILE with a derivations "
                    + "section (docs/configuration.md, \"Derivations\")");
        }
        return derivations;
    }

    static void printStatus(List<DerivationStatus> statuses) {
        for (DerivationStatus status : statuses) {
            System.out.printf("Derivation %s: %s -> %s, %,d changes behind (%.1f s), %,d errors recorded%n",
                    status.name(), status.source(), String.join(", ", status.targets()), status.eventsBehind(),
                    status.timeBehind().toMillis() / 1000.0, status.errors());
        }
    }

    @Command(name = "sync", mixinStandardHelpOptions = true,
            description = "Apply every source change up to the feed's current end, and exit (for batch jobs).")
    static final class Sync implements Callable<Integer> {
        @Mixin
        DataDirOptions dataDir;

        @Override
        public Integer call() throws Exception {
            List<Derivation> derivations = derivations(dataDir);
            try (EmbeddedStore store = dataDir.openStore();
                    DerivationRunner runner = DerivationRunner.withDefaults(store, derivations)) {
                long changes = runner.catchUp();
                System.out.printf("Derived %,d source changes%n", changes);
                printStatus(runner.status());
            }
            return ExitCodes.OK;
        }
    }

    @Command(name = "run", mixinStandardHelpOptions = true,
            description = "Derive changes as they come until stopped (Ctrl-C).")
    static final class Run implements Callable<Integer> {
        @Mixin
        DataDirOptions dataDir;

        @Mixin
        MetricsOptions metrics;

        @Override
        public Integer call() throws InterruptedException {
            List<Derivation> derivations = derivations(dataDir);
            MetricsConfig metricsConfig = metrics.config(dataDir);
            // Ctrl-C asks the main thread to stop; the hook waits until everything below is closed.
            CountDownLatch stopRequested = new CountDownLatch(1);
            CountDownLatch finished = new CountDownLatch(1);
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                stopRequested.countDown();
                try {
                    finished.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "docmirror-shutdown"));
            try (EmbeddedStore store = dataDir.openStore();
                    DerivationRunner runner = DerivationRunner.withDefaults(store, derivations)) {
                Optional<MetricsServer> metricsServer = MetricsOptions.start(metricsConfig,
                        List.of(new DerivationMetrics(runner)), System.out);
                try {
                    runner.start();
                    printStatus(runner.status());
                    System.out.println("Deriving; Ctrl-C stops");
                    System.out.flush();
                    stopRequested.await();
                } finally {
                    metricsServer.ifPresent(MetricsServer::close);
                }
            } finally {
                finished.countDown();
            }
            return ExitCodes.OK;
        }
    }
}
