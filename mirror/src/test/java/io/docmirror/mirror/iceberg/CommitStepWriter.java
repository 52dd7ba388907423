package io.docmirror.mirror.iceberg;

import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.layout.CatalogOptions;
import io.docmirror.mirror.MirrorConfig;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * The child process of {@link CommitStepCrashTest}: commits {@link OrderBatches} one after another through
 * {@link ContainerTables}, and halts at every step of every commit until the test lets it go on. At each
 * {@link CommitStep} it prints {@code at <step> <table>} ({@code -} for a step of the whole batch) and waits for a
 * line on its standard input; it also waits after printing {@code ready} (the tables are open) and
 * {@code committed <n>} (batch n's commit returned: the batch is acknowledged). So the test decides when each step
 * happens, and SIGKILLs it at the one it chose. It ends when its standard input does.
 *
 * <p>Arguments: the mirror directory, then the catalog: {@code embedded}, or {@code rest <uri> <warehouse>}.
 */
public final class CommitStepWriter {
    private final BufferedReader test = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));

    private CommitStepWriter() {
    }

    public static void main(String[] arguments) {
        new CommitStepWriter().run(Path.of(arguments[0]), config(arguments));
    }

    static MirrorConfig config(String... arguments) {
        MirrorConfig config = MirrorConfig.defaults();
        return arguments[1].equals("rest")
                ? config.withCatalog(new CatalogOptions("rest", arguments[2], arguments[3], "", ""))
                : config;
    }

    private void run(Path mirrorDirectory, MirrorConfig config) {
        try (ContainerTables tables = ContainerTables.open(mirrorDirectory, OrderBatches.CONTAINER,
                FlattenerConfig.defaults(OrderBatches.ROOT), config, (step, table) -> announce("at " + step + " "
                        + (table == null ? "-" : table.name())))) {
            if (!announce("ready")) {
                return;
            }
            do {
                long number = tables.batches() + 1;
                OrderBatches.commit(tables.begin(), number);
            } while (announce("committed " + tables.batches()));
        }
    }

    /** Prints {@code line} and waits for the test's go-ahead; false when the test closed our input (it is done). */
    private boolean announce(String line) {
        System.out.println(line);
        try {
            return test.readLine() != null;
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read the test's go-ahead after " + line, e);
        }
    }
}
