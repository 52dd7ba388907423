package io.docmirror.config;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static java.util.Objects.requireNonNull;

/**
 * The options one section of the configuration declares ({@code store.*}, {@code mirror.*}), found by key: a key
 * under the section's prefix that no option declares is a mistake, refused with the nearest declared key suggested.
 */
public final class SectionDefinition {
    private final String prefix;
    private final Map<String, ConfigOption> options = new LinkedHashMap<>();
    private final NearestKey nearestKey;

    /**
     * @param prefix the section's prefix ({@code "mirror."})
     * @param options its options, each with a key under the prefix, no two with the same key
     */
    public SectionDefinition(String prefix, List<ConfigOption> options) {
        this.prefix = requireNonNull(prefix, "prefix is null");
        for (ConfigOption option : options) {
            if (!option.key().startsWith(prefix)) {
                throw new IllegalArgumentException("Option " + option.key() + " is not under " + prefix);
            }
            if (this.options.putIfAbsent(option.key(), option) != null) {
                throw new IllegalArgumentException("Option " + option.key() + " is declared twice");
            }
        }
        this.nearestKey = new NearestKey(List.copyOf(this.options.keySet()));
    }

    public String prefix() {
        return prefix;
    }

    /** The declared options, in their declared order. */
    public List<ConfigOption> options() {
        return List.copyOf(options.values());
    }

    /** Whether the key is in this section (declared or not). */
    public boolean covers(String key) {
        return key.startsWith(prefix);
    }

    /**
     * The option a key sets: the one declared with the key, or the mapping whose entry it is
     * ({@code flatten.overrides.$.meta} is an entry of {@code flatten.overrides}).
     *
     * @throws IllegalArgumentException "Unknown configuration K (did you mean N?); see docs/configuration.md"
     */
    public ConfigOption option(String key) {
        ConfigOption option = options.get(key);
        if (option == null) {
            option = options.values().stream()
                    .filter(declared -> declared.type() == ConfigType.MAPPING && key.startsWith(declared.key() + "."))
                    .findFirst().orElse(null);
        }
        if (option == null) {
            throw new IllegalArgumentException("Unknown configuration " + key + " (did you mean "
                    + nearestKey.to(key) + "?); see docs/configuration.md");
        }
        return option;
    }

    /** The type of the value a key is given: its option's, or a string for an entry of a mapping. */
    public ConfigType typeOf(String key) {
        ConfigOption option = option(key);
        return option.type() == ConfigType.MAPPING && !key.equals(option.key()) ? ConfigType.STRING : option.type();
    }

    /**
     * Checks a value given as text for the option its key sets.
     *
     * @throws IllegalArgumentException for an unknown key, or a value not of its type ({@link #typeOf})
     */
    public void check(String key, String text) {
        typeOf(key).check(key, text);
    }
}
