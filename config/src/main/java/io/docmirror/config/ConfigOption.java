package io.docmirror.config;

import static java.util.Objects.requireNonNull;

/**
 * One configuration option: its key, the type of its values, its default value (as text) and what it does. Each
 * module declares its options once, in a list that docs/configuration.md mirrors (a test per module keeps the two
 * in step).
 */
public record ConfigOption(String key, ConfigType type, String defaultValue, String description) {
    /**
     * @throws IllegalArgumentException when the default is not a value of the type
     */
    public ConfigOption {
        requireNonNull(key, "key is null");
        requireNonNull(type, "type is null");
        requireNonNull(defaultValue, "defaultValue is null");
        requireNonNull(description, "description is null");
        type.check(key, defaultValue);
    }

    /** An option whose type is the one its default is a value of ({@link ConfigType#ofDefault}). */
    public ConfigOption(String key, String defaultValue, String description) {
        this(key, ConfigType.ofDefault(requireNonNull(defaultValue, "defaultValue is null")), defaultValue,
                description);
    }
}
