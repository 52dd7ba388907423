package io.docmirror.cli;

import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.Optional;

/** {@code --config FILE}, which every command that reads configuration takes. */
final class ConfigFileOption {
    @Option(names = "--config", paramLabel = "FILE",
            description = "A YAML or JSON config file; every option is in docs/configuration.md.")
    Optional<Path> file = Optional.empty();
}
