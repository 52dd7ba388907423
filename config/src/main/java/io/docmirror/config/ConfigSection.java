package io.docmirror.config;

import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * One module's section of the configuration ({@code store.*}, {@code mirror.*}, {@code sql.*}): the values given,
 * read against the module's declared options, with the same errors everywhere. Every value given is checked against
 * its option's type when the section is made, and an unknown key is refused, so a mistake never passes for a
 * default.
 */
public final class ConfigSection {
    private final SectionDefinition definition;
    private final Map<String, String> properties;

    private ConfigSection(SectionDefinition definition, Map<String, String> properties) {
        this.definition = definition;
        this.properties = properties;
    }

    /**
     * @param prefix the section's prefix ({@code "mirror."}); other keys are ignored
     * @throws IllegalArgumentException for a key with the prefix that is not one of {@code options} (naming the
     *     nearest one), or a value that is not of its option's type
     */
    public static ConfigSection of(String prefix, List<ConfigOption> options, Map<String, String> properties) {
        SectionDefinition definition = new SectionDefinition(prefix, options);
        properties.forEach((key, value) -> {
            if (definition.covers(key)) {
                definition.check(key, value);
            }
        });
        return new ConfigSection(definition, Map.copyOf(properties));
    }

    /** The value given for a string option, or its default. */
    public String text(String key) {
        return value(key, ConfigType.STRING);
    }

    public String text(ConfigOption option) {
        return text(option.key());
    }

    public int intValue(ConfigOption option) {
        return intValue(option.key());
    }

    public long longValue(ConfigOption option) {
        return longValue(option.key());
    }

    public boolean booleanValue(ConfigOption option) {
        return booleanValue(option.key());
    }

    /** The entries given for a mapping option, by name ({@code $.meta} for {@code flatten.overrides.$.meta}). */
    public SortedMap<String, String> mapping(ConfigOption option) {
        requireType(definition.option(option.key()), ConfigType.MAPPING);
        String entryPrefix = option.key() + ".";
        SortedMap<String, String> entries = new TreeMap<>();
        properties.forEach((key, value) -> {
            if (key.startsWith(entryPrefix)) {
                entries.put(key.substring(entryPrefix.length()), value);
            }
        });
        return entries;
    }

    public long longValue(String key) {
        return ConfigType.INTEGER.parseLong(key, value(key, ConfigType.INTEGER));
    }

    /**
     * @throws IllegalArgumentException when the value is beyond an int
     */
    public int intValue(String key) {
        long value = longValue(key);
        if (value != (int) value) {
            throw invalid(key, value, "must be an integer from " + Integer.MIN_VALUE + " to " + Integer.MAX_VALUE);
        }
        return (int) value;
    }

    public boolean booleanValue(String key) {
        return ConfigType.BOOLEAN.parseBoolean(key, value(key, ConfigType.BOOLEAN));
    }

    /** The error every module gives for a bad value: "Invalid value X for configuration Y: reason". */
    public static IllegalArgumentException invalid(String key, Object value, String reason) {
        return new IllegalArgumentException("Invalid value " + value + " for configuration " + key + ": " + reason);
    }

    /** The text given for {@code key}, or its default; the option must be declared with the type it is read as. */
    private String value(String key, ConfigType readAs) {
        ConfigOption option = definition.option(key);
        requireType(option, readAs);
        String given = properties.get(key);
        return given != null ? given : option.defaultValue().orElseThrow(() -> new IllegalStateException(
                "Configuration " + key + " has no default, and is read as if it had"));
    }

    private static void requireType(ConfigOption option, ConfigType readAs) {
        if (option.type() != readAs) {
            throw new IllegalStateException("Configuration " + option.key() + " takes " + option.type().noun()
                    + ", and is read as " + readAs.noun());
        }
    }
}
