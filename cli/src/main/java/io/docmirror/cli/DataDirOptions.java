package io.docmirror.cli;

import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.mirror.MirrorConfig;
import io.docmirror.mirror.MirrorLayout;
import io.docmirror.sql.SqlConfig;
import io.docmirror.sql.flight.FlightConfig;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.StoreConfig;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.Map;
import java.util.function.Function;

/** The options every command that opens a data directory shares. */
final class DataDirOptions {
    @Option(names = "--data", required = true, paramLabel = "DIR", description = "The data directory.")
    Path data;

    @Mixin
    ConfigFileOption config = new ConfigFileOption();

    /** Read once: every section below comes from the same file. */
    private Map<String, String> properties;

    /** The options of a command that takes {@code --data} with a default of its own (picocli sets the others'). */
    static DataDirOptions of(Path data, ConfigFileOption config) {
        DataDirOptions options = new DataDirOptions();
        options.data = data;
        options.config = config;
        return options;
    }

    Map<String, String> properties() {
        if (properties == null) {
            properties = ConfigFile.load(config.file);
        }
        return properties;
    }

    StoreConfig storeConfig() {
        return StoreConfig.fromProperties(ConfigFile.section(properties(), "store."));
    }

    MirrorConfig mirrorConfig() {
        return MirrorConfig.fromProperties(ConfigFile.section(properties(), "mirror."));
    }

    SqlConfig sqlConfig() {
        return SqlConfig.fromProperties(ConfigFile.section(properties(), "sql."));
    }

    FlightConfig flightConfig() {
        return FlightConfig.fromProperties(ConfigFile.section(properties(), "flight."));
    }

    /** The flattener's configuration of each container: the config file's {@code flatten.*}, for every container. */
    Function<String, FlattenerConfig> flattenerConfigs() {
        Map<String, String> flatten = ConfigFile.section(properties(), "flatten.");
        // Read once now, so that a bad flatten.* entry is reported before anything is opened.
        FlattenerConfig.fromProperties("validation", flatten);
        return container -> FlattenerConfig.fromProperties(container, flatten);
    }

    Path mirrorDirectory() {
        return MirrorLayout.mirrorDirectory(data);
    }

    Path storeDirectory() {
        return data.resolve("store");
    }

    EmbeddedStore openStore() {
        return EmbeddedStore.open(storeDirectory(), storeConfig());
    }
}
