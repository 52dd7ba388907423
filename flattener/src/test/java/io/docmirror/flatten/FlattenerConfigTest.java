package io.docmirror.flatten;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class FlattenerConfigTest {
    @Test
    void defaults() {
        assertThat(FlattenerConfig.defaults("orders")).isEqualTo(new FlattenerConfig("orders", TypePolicy.LOSSLESS,
                10, 1000, false, Map.of()));
    }

    @Test
    void readsTheConfigFileEntries() {
        FlattenerConfig config = FlattenerConfig.fromProperties("orders", Map.of(
                "flatten.type-policy", "well-defined",
                "flatten.max-depth", "3",
                "flatten.column-limit", "200",
                "flatten.detect-timestamps", "true",
                "flatten.overrides.$.items[*].attributes", "json",
                "store.sync-writes", "false"));

        assertThat(config).isEqualTo(new FlattenerConfig("orders", TypePolicy.WELL_DEFINED, 3, 200, true,
                Map.of(JsonPath.parse("$.items[*].attributes"), PathOverride.JSON)));
    }

    @Test
    void refusesUnknownKeysAndBadValues() {
        assertThatThrownBy(() -> FlattenerConfig.fromProperties("orders", Map.of("flatten.max-dept", "3")))
                .hasMessageContaining("Unknown configuration flatten.max-dept");
        assertThatThrownBy(() -> FlattenerConfig.fromProperties("orders", Map.of("flatten.max-depth", "deep")))
                .hasMessage("Invalid value deep for configuration flatten.max-depth: must be an integer");
        assertThatThrownBy(() -> FlattenerConfig.fromProperties("orders", Map.of("flatten.overrides.$.a", "hide")))
                .hasMessageContaining("Unknown path override 'hide'");
    }

    @Test
    void everyOptionIsDocumentedWithItsDefault() throws IOException {
        String documentation = Files.readString(Path.of("..", "docs", "configuration.md"));
        assertThat(documentation)
                .contains("| `flatten.type-policy` | `" + FlattenerConfig.DEFAULT_TYPE_POLICY.configValue() + "` |")
                .contains("| `flatten.max-depth` | `" + FlattenerConfig.DEFAULT_MAX_DEPTH + "` |")
                .contains("| `flatten.column-limit` | `" + FlattenerConfig.DEFAULT_COLUMN_LIMIT + "` |")
                .contains("| `flatten.detect-timestamps` | `" + FlattenerConfig.DEFAULT_DETECT_TIMESTAMPS + "` |");
        for (String option : FlattenerConfig.OPTIONS) {
            assertThat(documentation).contains("| `" + option + "` |");
        }
    }
}
