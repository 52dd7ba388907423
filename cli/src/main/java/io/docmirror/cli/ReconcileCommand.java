package io.docmirror.cli;

import io.docmirror.mirror.reconcile.ReconcileReport;
import io.docmirror.mirror.reconcile.Reconciler;
import io.docmirror.store.StoreClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.Callable;

@Command(name = "reconcile", mixinStandardHelpOptions = true,
        description = {"Compare each mirrored container with its store, value for value, and exit 1 on any "
                + "difference.",
                "Per feed range: the count and an order-independent checksum of the current documents the store "
                        + "held at the newest LSN the mirror holds, against the documents the mirror serves (read "
                        + "through its views and rebuilt into JSON); and the store's change log against the "
                        + "mirror's history, for the span the log still holds. Works beside a running daemon: "
                        + "pass --store URL, as its store is then open in the daemon."})
final class ReconcileCommand implements Callable<Integer> {
    @Mixin
    DataDirOptions dataDir;

    @Mixin
    MirrorStoreOption store = new MirrorStoreOption();

    @Option(names = "--container", paramLabel = "NAME", description = "Only this container (default: every "
            + "mirrored container).")
    String container;

    @Option(names = "--max-differences", paramLabel = "N", defaultValue = "20",
            description = "How many differences to describe (all are counted; default ${DEFAULT-VALUE}).")
    int maxDifferences;

    @Option(names = "--spill-directory", paramLabel = "DIR", defaultValue = "${sys:java.io.tmpdir}",
            description = "Where reconcile keeps on disk what grows with the container (each side's keys and "
                    + "hashes, the mirror's rows sorted by key), in the order of the size of its tables, in a "
                    + "directory of its own removed when it ends. Its memory does not grow with the container "
                    + "(default: ${DEFAULT-VALUE}).")
    Path spillDirectory;

    @Override
    public Integer call() {
        if (maxDifferences < 1) {
            throw new IllegalArgumentException("--max-differences must be at least 1: " + maxDifferences);
        }
        List<ReconcileReport> reports;
        try (StoreClient client = store.open(dataDir)) {
            Reconciler reconciler = new Reconciler(client, dataDir.mirrorDirectory(), dataDir.catalogSettings(),
                    Clock.systemUTC(), maxDifferences, spillDirectory);
            reports = container != null ? List.of(reconciler.reconcile(container)) : reconciler.reconcileAll();
        }
        boolean exact = true;
        for (ReconcileReport report : reports) {
            print(report);
            exact &= report.exact();
        }
        return exact ? ExitCodes.OK : ExitCodes.FAILURE;
    }

    private static void print(ReconcileReport report) {
        System.out.printf("%s (mirror batch %d): %s%n", report.container(), report.batch(),
                report.exact() ? "exact" : report.differenceCount() + " difference(s)");
        System.out.printf("  %-5s %12s %10s %16s %10s %16s %10s %10s %12s%n", "range", "mirrored LSN", "store docs",
                "store checksum", "mirror", "mirror checksum", "log from", "changes", "not compared");
        for (ReconcileReport.FeedRange range : report.feedRanges()) {
            System.out.printf("  %-5d %12d %,10d %016x %,10d %016x %10d %,10d %,12d%n", range.feedRange(),
                    range.mirroredLsn(), range.store().count(), range.store().checksum(), range.mirror().count(),
                    range.mirror().checksum(), range.logStartLsn(), range.storeChanges().count(),
                    range.notComparable());
        }
        for (ReconcileReport.Difference difference : report.differences()) {
            System.out.printf("  feed range %d, id %s, partition key %s: %s%n", difference.feedRange(),
                    difference.id(), difference.partitionKey(), difference.what());
        }
        if (report.differenceCount() > report.differences().size()) {
            System.out.printf("  ... and %d more%n", report.differenceCount() - report.differences().size());
        }
    }
}
