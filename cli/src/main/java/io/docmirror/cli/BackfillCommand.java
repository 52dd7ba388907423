package io.docmirror.cli;

import io.docmirror.mirror.Backfill;
import io.docmirror.mirror.MirrorConfig;
import io.docmirror.store.SnapshotSource;
import io.docmirror.store.StoreClient;
import me.tongfei.progressbar.ProgressBar;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.time.Clock;
import java.util.Locale;
import java.util.concurrent.Callable;

@Command(name = "backfill", mixinStandardHelpOptions = true,
        description = {"Snapshot a container straight into the mirror's base files, one consistent snapshot per feed "
                + "range, then hand over to the change feed: `mirror run` streams on from each range's snapshot with "
                + "no gap and no duplicate.",
                "For a container with more history than its change feed keeps, or a mirror to start over. Stop the "
                        + "daemon first (the mirror is locked while it runs). A killed backfill goes on where it "
                        + "stopped when run again; the mirror's readers see its result only when it is done.",
                "With --store URL it reads a store served by another process or machine, from snapshots that "
                        + "store holds for it."})
final class BackfillCommand implements Callable<Integer> {
    @Mixin
    DataDirOptions dataDir;

    @Mixin
    MirrorStoreOption store = new MirrorStoreOption();

    @Option(names = "--container", required = true, paramLabel = "NAME", description = "The container to backfill.")
    String container;

    @Override
    public Integer call() throws InterruptedException {
        MirrorConfig config = dataDir.mirrorConfig();
        var flattenerConfig = dataDir.flattenerConfigs().apply(container);
        long started = System.nanoTime();
        Backfill.Result result;
        try (StoreClient client = store.open(dataDir);
                ProgressBar bar = ConsoleProgress.bar("Backfilling " + container, -1)
                        .setUnit(" docs", 1)
                        .build()) {
            SnapshotSource snapshots = MirrorStoreOption.snapshotsOf(client);
            result = new Backfill(snapshots, dataDir.mirrorDirectory(), config, flattenerConfig, Clock.systemUTC())
                    .run(container, new Backfill.Listener() {
                        private int feedRanges;
                        private int rangesDone;

                        @Override
                        public void started(int ranges, int done, long itemsDone) {
                            feedRanges = ranges;
                            rangesDone = done;
                            bar.stepTo(itemsDone);
                            showRanges();
                        }

                        @Override
                        public void itemsWritten(long items) {
                            bar.stepBy(items);
                        }

                        @Override
                        public void rangeCommitted(int feedRange, long lsn) {
                            rangesDone++;
                            showRanges();
                        }

                        private void showRanges() {
                            bar.setExtraMessage(" feed ranges done: " + rangesDone + "/" + feedRanges);
                        }
                    });
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        System.out.printf(Locale.ROOT, "Backfilled %,d documents of container %s in %.1f s%s; the mirror is at "
                        + "%s and streams on from LSNs %s%n", result.items(), container, seconds,
                result.rangesResumed() == 0 ? "" : " (" + result.rangesResumed() + " feed ranges done by an earlier "
                        + "run)", result.position(), result.rangeLsns());
        return ExitCodes.OK;
    }
}
