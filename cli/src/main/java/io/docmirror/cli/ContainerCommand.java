package io.docmirror.cli;

import io.docmirror.store.ContainerProperties;
import io.docmirror.store.EmbeddedStore;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.util.concurrent.Callable;

@Command(name = "container", mixinStandardHelpOptions = true, description = "Create and list containers.",
        subcommands = {ContainerCommand.Create.class, ContainerCommand.ListContainers.class})
final class ContainerCommand implements Runnable {
    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    @Command(name = "create", mixinStandardHelpOptions = true, description = "Create a container.")
    static final class Create implements Callable<Integer> {
        @Mixin
        DataDirOptions dataDir;

        @Parameters(index = "0", paramLabel = "NAME", description = "The container's id.")
        String name;

        @Option(names = "--pk", required = true, paramLabel = "/path", description = "Partition key path, e.g. /customerId.")
        String partitionKeyPath;

        @Option(names = "--ttl", paramLabel = "N",
                description = "Default TTL: -1 (on, no default) or seconds. Absent: TTL off.")
        Integer defaultTtl;

        @Option(names = "--analytical-ttl", paramLabel = "N", defaultValue = "-1",
                description = "Analytical TTL: -1 keep forever (default), 0 not mirrored, or seconds.")
        Integer analyticalTtl;

        @Option(names = "--log-partitions", paramLabel = "N", defaultValue = "4",
                description = "Log partitions (feed ranges) of the change log (default 4).")
        int logPartitions;

        @Override
        public Integer call() {
            try (EmbeddedStore store = dataDir.openStore()) {
                ContainerProperties created = store.createContainer(
                        new ContainerProperties(name, partitionKeyPath, defaultTtl, analyticalTtl, logPartitions));
                System.out.println("Created container " + created.id() + " (partition key " + created.partitionKeyPath()
                        + ", default TTL " + (created.defaultTtl() == null ? "off" : created.defaultTtl())
                        + ", analytical TTL " + created.analyticalTtl() + ", " + created.logPartitions() + " log partitions)");
            }
            return ExitCodes.OK;
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = "List containers.")
    static final class ListContainers implements Callable<Integer> {
        @Mixin
        DataDirOptions dataDir;

        @Override
        public Integer call() {
            try (EmbeddedStore store = dataDir.openStore()) {
                for (ContainerProperties container : store.listContainers()) {
                    System.out.println(container.id() + "\tpk=" + container.partitionKeyPath()
                            + "\tttl=" + (container.defaultTtl() == null ? "off" : container.defaultTtl())
                            + "\tanalyticalTtl=" + container.analyticalTtl()
                            + "\tlogPartitions=" + container.logPartitions());
                }
            }
            return ExitCodes.OK;
        }
    }
}
