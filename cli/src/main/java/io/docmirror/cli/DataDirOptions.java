package io.docmirror.cli;

import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.StoreConfig;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/** The options every command that opens a data directory shares. */
final class DataDirOptions {
    @Option(names = "--data", required = true, paramLabel = "DIR", description = "The data directory.")
    Path data;

    @Option(names = "--config", paramLabel = "FILE",
            description = "A YAML or JSON config file; every option is in docs/configuration.md.")
    Optional<Path> config = Optional.empty();

    Map<String, String> properties() {
        return ConfigFile.load(config);
    }

    StoreConfig storeConfig() {
        return StoreConfig.fromProperties(ConfigFile.section(properties(), "store."));
    }

    Path storeDirectory() {
        return data.resolve("store");
    }

    EmbeddedStore openStore() {
        return EmbeddedStore.open(storeDirectory(), storeConfig());
    }
}
