package io.docmirror.config;

import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * One configuration option: its key, the type of its values, its default value (as text), the rule its values keep
 * and what it does. Each module declares its options once; docs/configuration.md is generated from the declarations.
 *
 * @param defaultValue the value a missing option takes; empty for an option without one (a required one, or one
 *     whose absence means something of its own, such as a mapping with no entries)
 * @param rule what a value must be beyond its type ({@link ConfigRule#ANY} for nothing more), checked by
 *     {@link #check}
 */
public record ConfigOption(String key, ConfigType type, Optional<String> defaultValue, String description,
        ConfigRule rule) {
    /**
     * @throws IllegalArgumentException when the default is not a value of the type, or breaks the rule
     */
    public ConfigOption {
        requireNonNull(key, "key is null");
        requireNonNull(type, "type is null");
        requireNonNull(defaultValue, "defaultValue is null");
        requireNonNull(description, "description is null");
        requireNonNull(rule, "rule is null");
        defaultValue.ifPresent(text -> type.check(key, text));
    }

    public ConfigOption(String key, ConfigType type, String defaultValue, String description) {
        this(key, type, Optional.of(requireNonNull(defaultValue, "defaultValue is null")), description,
                ConfigRule.ANY);
    }

    /** An option whose type is the one its default is a value of ({@link ConfigType#ofDefault}). */
    public ConfigOption(String key, String defaultValue, String description) {
        this(key, ConfigType.ofDefault(requireNonNull(defaultValue, "defaultValue is null")), defaultValue,
                description);
    }

    /** An option without a default: one that must be given, or whose absence means something of its own. */
    public static ConfigOption withoutDefault(String key, ConfigType type, String description) {
        return new ConfigOption(key, type, Optional.empty(), description, ConfigRule.ANY);
    }

    /**
     * This option with a rule its values keep.
     *
     * @throws IllegalArgumentException when the default breaks the rule
     */
    public ConfigOption withRule(ConfigRule rule) {
        ConfigOption ruled = new ConfigOption(key, type, defaultValue, description, rule);
        defaultValue.filter(text -> !text.isEmpty()).ifPresent(text -> {
            if (type == ConfigType.INTEGER) {
                rule.check(key, Long.parseLong(text.trim()));
            } else {
                rule.check(key, text);
            }
        });
        return ruled;
    }

    /**
     * Checks a number of this option against its rule.
     *
     * @throws IllegalArgumentException "Invalid value X for configuration Y: must be at least 1"
     */
    public void check(long value) {
        rule.check(key, value);
    }

    /**
     * Checks a number of this option found under {@code fullKey} (an option of a structured section, such as
     * {@code derivations.d.targets.T.ttl}) against its rule, naming that key when it is broken.
     */
    public void check(String fullKey, long value) {
        rule.check(fullKey, value);
    }

    /**
     * Checks a word of this option against its rule.
     *
     * @throws IllegalArgumentException "Invalid value X for configuration Y: must be one of a, b"
     */
    public void check(String value) {
        rule.check(key, value);
    }

    /** The error for a value of this option that breaks a rule: "Invalid value X for configuration Y: reason". */
    public IllegalArgumentException invalid(Object value, String reason) {
        return ConfigSection.invalid(key, value, reason);
    }
}
