package io.docmirror.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * A config file is checked whole when it is loaded: a value not of its option's type, an unknown key or an unknown
 * section is refused naming it, never read as an empty value or a default.
 */
class ConfigFileTest {
    private static final Path EXAMPLE = Path.of("..", "docs", "examples", "customers-orders-items.yaml");

    @TempDir
    Path dir;

    @Test
    void aListOrNullPrimaryKeyIsRefusedInsteadOfTurningAuthenticationOff() {
        assertRefused("store:\n  http:\n    primary-key: [k1, k2]\n",
                "Invalid value (a list) for configuration store.http.primary-key: must be a string");
        assertRefused("store:\n  http:\n    primary-key:\n",
                "Invalid value null for configuration store.http.primary-key: must be a string (an empty value in "
                        + "YAML is null; \"\" is the empty string)");
        assertRefused("store.http.primary-key: ~\n", "Invalid value null for configuration store.http.primary-key");
        assertRefused("store:\n  http:\n    primary-key: {}\n",
                "Invalid value (a mapping) for configuration store.http.primary-key: must be a string");
        assertRefused("store:\n  http:\n    primary-key: 0123\n",
                "Invalid value (a number) for configuration store.http.primary-key: must be a string; put it in "
                        + "quotes");
    }

    @Test
    void aStoreWithAListPrimaryKeyDoesNotStart() throws IOException {
        Path config = write("store:\n  http:\n    primary-key: [k1]\n");
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        PrintStream originalErr = System.err;
        System.setErr(new PrintStream(errors, true, StandardCharsets.UTF_8));
        try {
            // Were the file accepted, the store would serve until stopped: the timeout fails the test then.
            int exit = assertTimeoutPreemptively(Duration.ofSeconds(60), () -> Docmirror.run("store", "serve",
                    "--data", dir.resolve("data").toString(), "--port", "0", "--config", config.toString()));

            assertThat(exit).isEqualTo(ExitCodes.FAILURE);
        } finally {
            System.setErr(originalErr);
        }
        assertThat(errors.toString(StandardCharsets.UTF_8))
                .contains("Invalid value (a list) for configuration store.http.primary-key: must be a string");
        assertThat(dir.resolve("data").resolve("store")).doesNotExist();
    }

    @Test
    void aMistypedValueIsRefusedNamingTheKeyTheValueAndTheRule() {
        assertRefused("store:\n  http:\n    port: eighty\n",
                "Invalid value eighty for configuration store.http.port: must be an integer");
        assertRefused("store:\n  http:\n    port: 80.5\n",
                "Invalid value 80.5 for configuration store.http.port: must be an integer");
        assertRefused("store:\n  sync-writes: yes\n",
                "Invalid value yes for configuration store.sync-writes: must be true or false");
        assertRefused("metrics.enabled: off\n",
                "Invalid value off for configuration metrics.enabled: must be true or false");
        assertRefused("mirror:\n  batch:\n    max-events: [10]\n",
                "Invalid value (a list) for configuration mirror.batch.max-events: must be an integer");
        assertRefused("flatten:\n  max-depth: ~\n", "Invalid value null for configuration flatten.max-depth: must be "
                + "an integer (an empty value in YAML is null; \"\" is the empty string)");
        assertRefused("flatten:\n  max-depth: \"three\"\n", "Invalid value three for configuration flatten.max-depth: "
                + "must be an integer");
        assertRefused("flatten:\n  overrides:\n    $.meta: [json]\n", "Invalid value (a list) for configuration "
                + "flatten.overrides.$.meta: must be a string");
        assertRefused("flatten:\n  column-limit: 1e3\n", "Invalid value 1000.0 for configuration "
                + "flatten.column-limit: must be an integer");
    }

    @Test
    void anUnknownKeyOrSectionIsRefusedWithTheNearestKnownOne() {
        assertRefused("store:\n  http:\n    primary_key: k\n", "Unknown configuration store.http.primary_key (did you "
                + "mean store.http.primary-key?); see docs/configuration.md");
        assertRefused("sql.timeout: 10\n",
                "Unknown configuration sql.timeout (did you mean sql.query-timeout-ms?); see docs/configuration.md");
        assertRefused("stor:\n  sync-writes: false\n", "Unknown configuration section stor (did you mean store?); "
                + "the sections are store, mirror, sql, flight, kafka, metrics, flatten, derivations");
        assertRefused("store: false\n", "Invalid configuration section store: it must be a mapping of its options");
        assertRefused("derivations.orders: {}\n", "Unknown configuration derivations.orders: write the derivations "
                + "section as one mapping");
    }

    @Test
    void anOptionGivenTwiceIsRefused() {
        assertRefused("store.sync-writes: false\nstore:\n  sync-writes: true\n",
                "Configuration store.sync-writes is given twice");
        assertRefused("store:\n  sync-writes: false\n  sync-writes: true\n", "Duplicate field 'sync-writes'");
    }

    @Test
    void valuesOfTheirTypesAreReadAsText() throws IOException {
        ConfigFile file = ConfigFile.load(Optional.of(write("""
                store:
                  sync-writes: false
                  http: {port: 9000, primary-key: "0123", read-only-key: ""}
                store.change-log.retention-ms: "3600000"
                mirror:
                metrics.enabled: true
                flatten:
                  max-depth: 5
                  overrides: {"$.meta": json}
                """)));

        assertThat(file.section("store.")).isEqualTo(Map.of("store.sync-writes", "false", "store.http.port", "9000",
                "store.http.primary-key", "0123", "store.http.read-only-key", "",
                "store.change-log.retention-ms", "3600000"));
        assertThat(file.section("mirror.")).isEmpty();
        assertThat(file.section("metrics.")).isEqualTo(Map.of("metrics.enabled", "true"));
        assertThat(file.section("flatten.")).isEqualTo(Map.of("flatten.max-depth", "5",
                "flatten.overrides.$.meta", "json"));
    }

    @Test
    void aMappingWithNoEntriesIsNoOverrides() throws IOException {
        ConfigFile file = ConfigFile.load(Optional.of(write("flatten: {overrides: {}}\n")));

        assertThat(file.section("flatten.")).isEmpty();
    }

    @Test
    void theDocumentedExampleLoads() {
        ConfigFile file = ConfigFile.load(Optional.of(EXAMPLE));

        assertThat(file.structuredSection("derivations").has("orders")).isTrue();
        assertThat(file.section("store.")).isEmpty();
    }

    private void assertRefused(String yaml, String message) {
        Path file;
        try {
            file = write(yaml);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        assertThatThrownBy(() -> ConfigFile.load(Optional.of(file))).as(yaml)
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(message);
    }

    private Path write(String yaml) throws IOException {
        return Files.writeString(Files.createTempFile(dir, "config", ".yaml"), yaml);
    }
}
