package io.docmirror.cli;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** docs/configuration.md is what the options' declarations and the prose template render, nothing else. */
class ConfigurationReferenceTest {
    @Test
    void docsConfigurationIsGeneratedFromTheDeclarations() throws IOException {
        String committed = Files.readString(Path.of("..", "docs", "configuration.md"), StandardCharsets.UTF_8);

        assertThat(committed).as("docs/configuration.md is out of date; regenerate it with: "
                + ConfigurationReference.REGENERATE + " (after mvn -q package -DskipTests)")
                .isEqualTo(ConfigurationReference.render());
    }

    @Test
    void everyDeclaredOptionHasARowWithItsDefault() {
        String reference = ConfigurationReference.render();

        assertThat(reference)
                .contains("| `store.http.primary-key` | (empty) | ")
                .contains("| `mirror.batch.max-events` | `50000` | ")
                .contains("| `mirror.catalog.type` | `sqlite` | ")
                .contains("| `flatten.overrides` | (none) | a mapping of names to values, each one of json, child-table, "
                        + "flatten, drop | ")
                .contains("| `flight.port` | `32010` | an integer, from 0 to 65535 | ")
                .contains("| `partition-key` | (none) | a string | Required: ")
                .contains("| `analytical-ttl` | `-1` | ");
        for (var section : ConfigFile.typedSections()) {
            for (var option : section.options()) {
                assertThat(reference).contains("| `" + option.key() + "` | ");
            }
        }
    }
}
