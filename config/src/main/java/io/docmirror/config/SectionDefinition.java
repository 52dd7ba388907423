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

    /** Whether the key is in this section (declared or not). */
    public boolean covers(String key) {
        return key.startsWith(prefix);
    }

    /**
     * @throws IllegalArgumentException "Unknown configuration K (did you mean N?); see docs/configuration.md"
     */
    public ConfigOption option(String key) {
        ConfigOption option = options.get(key);
        if (option == null) {
            throw new IllegalArgumentException("Unknown configuration " + key + " (did you mean "
                    + nearestKey.to(key) + "?); see docs/configuration.md");
        }
        return option;
    }
}
