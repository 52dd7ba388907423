package io.docmirror.flatten;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class FlattenerConfigTest {
    @Test
    void defaults() {
        assertThat(FlattenerConfig.defaults("orders")).isEqualTo(new FlattenerConfig("orders", TypePolicy.LOSSLESS,
                10, 1000, false, Map.of()));
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
