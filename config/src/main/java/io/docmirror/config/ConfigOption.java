package io.docmirror.config;

import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * One configuration option: its key, the type of its values, its default value (as text) and what it does. Each
 * module declares its options once; docs/configuration.md is generated from the declarations.
 *
 * @param defaultValue the value a missing option takes; empty for an option without one (a required one, or one
 *     whose absence means something of its own, such as a mapping with no entries)
 */
public record ConfigOption(String key, ConfigType type, Optional<String> defaultValue, String description) {
    /**
     * @throws IllegalArgumentException when the default is not a value of the type
     */
    public ConfigOption {
        requireNonNull(key, "key is null");
        requireNonNull(type, "type is null");
        requireNonNull(defaultValue, "defaultValue is null");
        requireNonNull(description, "description is null");
        defaultValue.ifPresent(text -> type.check(key, text));
    }

    public ConfigOption(String key, ConfigType type, String defaultValue, String description) {
        this(key, type, Optional.of(requireNonNull(defaultValue, "defaultValue is null")), description);
    }

    /** An option whose type is the one its default is a value of ({@link ConfigType#ofDefault}). */
    public ConfigOption(String key, String defaultValue, String description) {
        this(key, ConfigType.ofDefault(requireNonNull(defaultValue, "defaultValue is null")), defaultValue,
                description);
    }

    /** An option without a default: one that must be given, or whose absence means something of its own. */
    public static ConfigOption withoutDefault(String key, ConfigType type, String description) {
        return new ConfigOption(key, type, Optional.empty(), description);
    }

    /** The error for a value of this option that breaks a rule: "Invalid value X for configuration Y: reason". */
    public IllegalArgumentException invalid(Object value, String reason) {
        return ConfigSection.invalid(key, value, reason);
    }
}
