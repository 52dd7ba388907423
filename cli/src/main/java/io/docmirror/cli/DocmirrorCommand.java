package io.docmirror.cli;

import picocli.CommandLine.Command;

@Command(name = "docmirror",
        mixinStandardHelpOptions = true,
        version = "docmirror 0.1.0",
        description = "An analytical mirror for document databases: a Cosmos-style operational store, its change feed, "
                + "and a Parquet mirror served over SQL.",
        subcommands = {
                StoreCommand.class,
                ContainerCommand.class,
                ImportCommand.class,
                MirrorCommand.class,
                BackfillCommand.class,
                RebuildCommand.class,
                ReconcileCommand.class,
                RepairCommand.class,
                DeriveCommand.class,
                StatusCommand.class,
                SqlCommand.class,
                RunCommand.class,
                ConfigCommand.class,
        })
final class DocmirrorCommand implements Runnable {
    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }
}
