package io.docmirror.cli;

import io.docmirror.mirror.Repair;
import io.docmirror.store.StoreClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.time.Clock;
import java.util.concurrent.Callable;

@Command(name = "repair", mixinStandardHelpOptions = true,
        description = {"Mend a mirrored container whose files cannot be read as its tables recorded them "
                + "(missing, truncated, not Parquet): history files are read again from the store's change log, "
                + "then the tables and dead letters are rebuilt from the history.",
                "When the change log no longer holds what a damaged history file held, nothing changes and the "
                        + "message says so: `docmirror backfill` then snapshots the container again. Stop the "
                        + "mirror daemon first (the container's mirror has one writer)."})
final class RepairCommand implements Callable<Integer> {
    @Mixin
    DataDirOptions dataDir;

    @Mixin
    MirrorStoreOption store = new MirrorStoreOption();

    @Option(names = "--container", required = true, paramLabel = "NAME", description = "The container to repair.")
    String container;

    @Override
    public Integer call() {
        Repair.Result result;
        try (StoreClient client = store.open(dataDir)) {
            result = new Repair(client, dataDir.mirrorDirectory(), dataDir.mirrorConfig(), Clock.systemUTC())
                    .run(container);
        }
        if (result.damages().isEmpty()) {
            System.out.printf("The mirror of %s has no damaged file; nothing to repair%n", container);
            return ExitCodes.OK;
        }
        for (String damage : result.damages()) {
            System.out.println("Damaged: " + damage);
        }
        System.out.printf("Repaired the mirror of %s: %,d changes of its history taken again from the change log, "
                + "its tables rebuilt from %,d changes%n", container, result.recoveredChanges(),
                result.rebuiltChanges());
        return ExitCodes.OK;
    }
}
