package io.docmirror.config;

import java.util.List;
import java.util.Map;

/**
 * One module's section of the configuration ({@code store.*}, {@code mirror.*}, {@code sql.*}): the values given,
 * read against the module's declared options, with the same errors everywhere. It lives in the operational-store
 * module because every module that reads such a section depends on that one.
 */
public final class ConfigSection {
    private final List<ConfigOption> options;
    private final Map<String, String> properties;

    private ConfigSection(List<ConfigOption> options, Map<String, String> properties) {
        this.options = options;
        this.properties = properties;
    }

    /**
     * @param prefix the section's prefix ({@code "mirror."}); other keys are ignored
     * @throws IllegalArgumentException for a key with the prefix that is not one of {@code options}
     */
    public static ConfigSection of(String prefix, List<ConfigOption> options, Map<String, String> properties) {
        for (String key : properties.keySet()) {
            if (key.startsWith(prefix) && options.stream().noneMatch(option -> option.key().equals(key))) {
                throw new IllegalArgumentException("Unknown configuration " + key + "; see docs/configuration.md");
            }
        }
        return new ConfigSection(options, properties);
    }

    /** The value given for {@code key}, or its default. */
    public String text(String key) {
        String given = properties.get(key);
        if (given != null) {
            return given;
        }
        return options.stream().filter(option -> option.key().equals(key)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("No configuration option " + key))
                .defaultValue();
    }

    public long longValue(String key) {
        String text = text(key);
        try {
            return Long.parseLong(text.trim());
        } catch (NumberFormatException e) {
            throw invalid(key, text, "must be an integer");
        }
    }

    public int intValue(String key) {
        String text = text(key);
        try {
            return Integer.parseInt(text.trim());
        } catch (NumberFormatException e) {
            throw invalid(key, text, "must be an integer");
        }
    }

    public boolean booleanValue(String key) {
        String text = text(key).trim();
        if (!text.equals("true") && !text.equals("false")) {
            throw invalid(key, text, "must be true or false");
        }
        return Boolean.parseBoolean(text);
    }

    /** The error every module gives for a bad value: "Invalid value X for configuration Y: reason". */
    public static IllegalArgumentException invalid(String key, Object value, String reason) {
        return new IllegalArgumentException("Invalid value " + value + " for configuration " + key + ": " + reason);
    }
}
