package io.docmirror.config;

import static java.util.Objects.requireNonNull;

/**
 * One configuration option: its key, default value (as text) and what it does. Each module declares its options
 * once, in a list that docs/configuration.md mirrors (a test per module keeps the two in step).
 */
public record ConfigOption(String key, String defaultValue, String description) {
    public ConfigOption {
        requireNonNull(key, "key is null");
        requireNonNull(defaultValue, "defaultValue is null");
        requireNonNull(description, "description is null");
    }
}
