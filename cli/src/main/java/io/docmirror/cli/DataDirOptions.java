package io.docmirror.cli;

import io.docmirror.feed.derive.Derivation;
import io.docmirror.feed.derive.DerivationConfig;
import io.docmirror.feed.kafka.KafkaBridgeConfig;
import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.metrics.MetricsConfig;
import io.docmirror.layout.CatalogOptions;
import io.docmirror.layout.CatalogSettings;
import io.docmirror.mirror.MirrorConfig;
import io.docmirror.layout.MirrorLayout;
import io.docmirror.sql.SqlConfig;
import io.docmirror.sql.flight.FlightConfig;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.StoreConfig;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/** The options every command that opens a data directory shares. */
final class DataDirOptions {
    @Option(names = "--data", required = true, paramLabel = "DIR", description = "The data directory.")
    Path data;

    @Mixin
    ConfigFileOption config = new ConfigFileOption();

    /** Read once: every section below comes from the same file. */
    private ConfigFile configFile;

    /** The options of a command that takes {@code --data} with a default of its own (picocli sets the others'). */
    static DataDirOptions of(Path data, ConfigFileOption config) {
        DataDirOptions options = new DataDirOptions();
        options.data = data;
        options.config = config;
        return options;
    }

    private ConfigFile configFile() {
        if (configFile == null) {
            configFile = ConfigFile.load(config.file);
        }
        return configFile;
    }

    StoreConfig storeConfig() {
        return StoreConfig.fromProperties(configFile().section("store."));
    }

    MirrorConfig mirrorConfig() {
        return MirrorConfig.fromProperties(configFile().section("mirror."));
    }

    SqlConfig sqlConfig() {
        return SqlConfig.fromProperties(configFile().section(SqlConfig.PREFIX));
    }

    KafkaBridgeConfig kafkaConfig() {
        return KafkaBridgeConfig.fromProperties(configFile().section(KafkaBridgeConfig.PREFIX));
    }

    MetricsConfig metricsConfig() {
        return MetricsConfig.fromProperties(configFile().section(MetricsConfig.PREFIX));
    }

    FlightConfig flightConfig() {
        return FlightConfig.fromProperties(configFile().section(FlightConfig.PREFIX));
    }

    /** The flattener's configuration of each container: the config file's {@code flatten.*}, for every container. */
    Function<String, FlattenerConfig> flattenerConfigs() {
        Map<String, String> flatten = configFile().section(FlattenerConfig.PREFIX);
        // Read once now, so that a bad flatten.* entry is reported before anything is opened.
        FlattenerConfig.fromProperties("validation", flatten);
        return container -> FlattenerConfig.fromProperties(container, flatten);
    }

    /** The derivations the config file declares (none without one). */
    List<Derivation> derivations() {
        return DerivationConfig.fromConfig(configFile().structuredSection(DerivationConfig.SECTION));
    }

    Path mirrorDirectory() {
        return MirrorLayout.mirrorDirectory(data);
    }

    /** The catalog the mirror keeps its tables in ({@code mirror.catalog.*}), for the mirror directory. */
    CatalogOptions catalogOptions() {
        return mirrorConfig().catalog();
    }

    CatalogSettings catalogSettings() {
        return catalogOptions().settings(mirrorDirectory());
    }

    Path storeDirectory() {
        return data.resolve("store");
    }

    EmbeddedStore openStore() {
        return EmbeddedStore.open(storeDirectory(), storeConfig());
    }
}
