package io.docmirror.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.docmirror.mirror.ContainerStatus;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.EmbeddedStore;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

@Command(name = "status", mixinStandardHelpOptions = true,
        description = "Per mirrored container: the mirrored LSNs, lag, tables, rows, files and last commit.")
final class StatusCommand implements Callable<Integer> {
    @Mixin
    DataDirOptions dataDir;

    @Option(names = "--json", description = "Print JSON instead of a table.")
    boolean json;

    @Override
    public Integer call() throws Exception {
        List<ContainerStatus> statuses = new ArrayList<>();
        try (EmbeddedStore store = dataDir.openStore()) {
            for (ContainerProperties container : store.listContainers()) {
                if (container.isMirrored()) {
                    statuses.add(ContainerStatus.of(dataDir.mirrorDirectory(), store, container, Clock.systemUTC()));
                }
            }
        }
        if (json) {
            System.out.println(new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)
                    .writeValueAsString(statuses));
            return ExitCodes.OK;
        }
        System.out.printf("%-24s %8s %-24s %12s %10s %7s %12s %6s %6s  %s%n", "container", "version", "last commit",
                "lag events", "lag s", "tables", "stored rows", "files", "dead", "mirrored LSN per feed range");
        for (ContainerStatus status : statuses) {
            System.out.printf("%-24s %8d %-24s %,12d %10.1f %7d %,12d %6d %6d  %s%n", status.container(),
                    status.version(), status.version() == 0 ? "never" : Instant.ofEpochMilli(status.lastCommitMillis()),
                    status.lagEvents(), status.lagSeconds(), status.tables(), status.storedRows(), status.files(),
                    status.deadLetters(), status.mirroredLsn());
        }
        return ExitCodes.OK;
    }
}
