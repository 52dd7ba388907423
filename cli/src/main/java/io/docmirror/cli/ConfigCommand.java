package io.docmirror.cli;

import picocli.CommandLine.Command;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;

@Command(name = "config", mixinStandardHelpOptions = true, description = "About the config file.",
        subcommands = {ConfigCommand.Reference.class})
final class ConfigCommand implements Runnable {
    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    @Command(name = "reference", mixinStandardHelpOptions = true,
            description = "Print the reference of every option (docs/configuration.md), from the options' "
                    + "declarations: " + ConfigurationReference.REGENERATE)
    static final class Reference implements Callable<Integer> {
        @Override
        public Integer call() {
            PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
            out.print(ConfigurationReference.render());
            out.flush();
            return ExitCodes.OK;
        }
    }
}
