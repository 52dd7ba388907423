package io.docmirror.cli;

import io.docmirror.mirror.MirrorConfig;
import io.docmirror.mirror.Rebuild;
import me.tongfei.progressbar.ProgressBar;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.time.Clock;
import java.util.Locale;
import java.util.concurrent.Callable;

@Command(name = "rebuild", mixinStandardHelpOptions = true,
        description = {"Re-derive a mirrored container's tables from the mirror's history under the config file's "
                + "flatten.* options (a new type policy, override or column limit), without reading the store.",
                "Every table of the container is rebuilt (they all come from the same documents) and replaced at "
                        + "once; the history and the change feed position stay, so the daemon streams on with the "
                        + "new mapping. Stop the daemon first (the mirror is locked while it runs)."})
final class RebuildCommand implements Callable<Integer> {
    @Mixin
    DataDirOptions dataDir;

    @Option(names = "--table", required = true, paramLabel = "NAME",
            description = "A table of the container to rebuild (its root table has the container's name).")
    String table;

    @Override
    public Integer call() {
        MirrorConfig config = dataDir.mirrorConfig();
        var flattenerConfigs = dataDir.flattenerConfigs();
        Rebuild rebuild = new Rebuild(dataDir.mirrorDirectory(), config, Clock.systemUTC());
        String container = rebuild.containerOf(table);
        long started = System.nanoTime();
        Rebuild.Result result;
        try (ProgressBar bar = ConsoleProgress.bar("Rebuilding " + container, -1).setUnit(" changes", 1).build()) {
            result = rebuild.run(container, flattenerConfigs.apply(container), bar::stepTo);
        }
        double seconds = (System.nanoTime() - started) / 1e9;
        System.out.printf(Locale.ROOT, "Rebuilt the tables of container %s (%s) from %,d changes of its history in "
                        + "%.1f s; the mirror is at %s%n", container, String.join(", ", result.tables()),
                result.changes(), seconds, result.position());
        return ExitCodes.OK;
    }
}
