package io.docmirror.config;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Checks a module's options against docs/configuration.md, the one place every option is documented. */
public final class ConfigDocumentation {
    private ConfigDocumentation() {
    }

    /** Each option has a row with its key and its default ({@code (empty)} for an empty one). */
    public static void assertDocumented(List<ConfigOption> options) {
        String documentation;
        try {
            documentation = Files.readString(Path.of("..", "docs", "configuration.md"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        for (ConfigOption option : options) {
            String defaultText = option.defaultValue().orElseThrow().isEmpty() ? "(empty)"
                    : "`" + option.defaultValue().orElseThrow() + "`";
            assertThat(documentation).contains("| `" + option.key() + "` | " + defaultText + " |");
        }
    }
}
