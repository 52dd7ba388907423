package io.docmirror.flatten;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static java.util.Objects.requireNonNull;

/**
 * How one container's documents become tables. Every option has a default that suits a first mirror; the
 * reference with keys and defaults is docs/configuration.md.
 *
 * @param rootTable the root table's name (the container's name, as a rule)
 * @param typePolicy {@code flatten.type-policy}: what happens to a value whose type differs from its path's
 * @param maxDepth {@code flatten.max-depth}: nested objects become {@code a__b} columns down to this many levels below
 *     a row; deeper structure is kept as JSON text
 * @param columnLimit {@code flatten.column-limit}: the most columns a table has; further properties go to
 *     {@code _overflow}
 * @param detectTimestamps {@code flatten.detect-timestamps}: ISO-8601 UTC strings ({@code 2024-05-01T12:00:00Z})
 *     become TIMESTAMP columns; off by default, as in Cosmos DB, where they stay strings
 * @param overrides {@code flatten.overrides}: per-path representations that replace inference
 */
public record FlattenerConfig(String rootTable, TypePolicy typePolicy, int maxDepth, int columnLimit,
        boolean detectTimestamps, Map<JsonPath, PathOverride> overrides) {
    public static final TypePolicy DEFAULT_TYPE_POLICY = TypePolicy.LOSSLESS;
    public static final int DEFAULT_MAX_DEPTH = 10;
    public static final int DEFAULT_COLUMN_LIMIT = 1000;
    public static final boolean DEFAULT_DETECT_TIMESTAMPS = false;

    /** Keys as they appear in the configuration file. */
    public static final List<String> OPTIONS = List.of("flatten.type-policy", "flatten.max-depth",
            "flatten.column-limit", "flatten.detect-timestamps", "flatten.overrides");

    private static final String OVERRIDES_PREFIX = "flatten.overrides.";

    /** Root and child tables need their system columns plus {@code _empty}, {@code _overflow} and one value column. */
    private static final int MIN_COLUMN_LIMIT = SystemColumns.ROOT.size() + 3;

    public FlattenerConfig {
        requireNonNull(rootTable, "rootTable is null");
        requireNonNull(typePolicy, "typePolicy is null");
        if (rootTable.isEmpty()) {
            throw new IllegalArgumentException("Invalid value '' for configuration rootTable: a table needs a name");
        }
        if (maxDepth < 1) {
            throw new IllegalArgumentException("Invalid value " + maxDepth
                    + " for configuration flatten.max-depth: must be at least 1");
        }
        if (columnLimit < MIN_COLUMN_LIMIT) {
            throw new IllegalArgumentException("Invalid value " + columnLimit
                    + " for configuration flatten.column-limit: must be at least " + MIN_COLUMN_LIMIT
                    + " (the system columns, _empty, _overflow and one value column)");
        }
        overrides = Map.copyOf(requireNonNull(overrides, "overrides is null"));
    }

    /**
     * Reads the {@code flatten.*} entries of a config file, flattened to dotted keys; overrides are the entries
     * {@code flatten.overrides.<JSON path>}. Missing keys take their defaults.
     *
     * @throws IllegalArgumentException "Invalid value X for configuration Y: reason", or for an unknown key
     */
    public static FlattenerConfig fromProperties(String rootTable, Map<String, String> properties) {
        FlattenerConfig config = defaults(rootTable);
        for (Map.Entry<String, String> entry : properties.entrySet()) {
            String key = entry.getKey();
            String value = entry.getValue().trim();
            if (!key.startsWith("flatten.")) {
                continue;
            }
            try {
                if (key.startsWith(OVERRIDES_PREFIX)) {
                    config = config.withOverride(JsonPath.parse(key.substring(OVERRIDES_PREFIX.length())),
                            PathOverride.fromConfigValue(value));
                    continue;
                }
                config = switch (key) {
                    case "flatten.type-policy" -> config.withTypePolicy(TypePolicy.fromConfigValue(value));
                    case "flatten.max-depth" -> config.withMaxDepth(Integer.parseInt(value));
                    case "flatten.column-limit" -> config.withColumnLimit(Integer.parseInt(value));
                    case "flatten.detect-timestamps" -> config.withDetectTimestamps(parseBoolean(value));
                    default -> throw new IllegalArgumentException("Unknown configuration " + key
                            + "; see docs/configuration.md");
                };
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("Invalid value " + value + " for configuration " + key
                        + ": must be an integer", e);
            }
        }
        return config;
    }

    private static boolean parseBoolean(String value) {
        if (!value.equals("true") && !value.equals("false")) {
            throw new IllegalArgumentException("Invalid value " + value
                    + " for configuration flatten.detect-timestamps: must be true or false");
        }
        return Boolean.parseBoolean(value);
    }

    /** The defaults for a container. */
    public static FlattenerConfig defaults(String rootTable) {
        return new FlattenerConfig(rootTable, DEFAULT_TYPE_POLICY, DEFAULT_MAX_DEPTH, DEFAULT_COLUMN_LIMIT,
                DEFAULT_DETECT_TIMESTAMPS, Map.of());
    }

    public FlattenerConfig withTypePolicy(TypePolicy policy) {
        return new FlattenerConfig(rootTable, policy, maxDepth, columnLimit, detectTimestamps, overrides);
    }

    public FlattenerConfig withMaxDepth(int depth) {
        return new FlattenerConfig(rootTable, typePolicy, depth, columnLimit, detectTimestamps, overrides);
    }

    public FlattenerConfig withColumnLimit(int limit) {
        return new FlattenerConfig(rootTable, typePolicy, maxDepth, limit, detectTimestamps, overrides);
    }

    public FlattenerConfig withDetectTimestamps(boolean detect) {
        return new FlattenerConfig(rootTable, typePolicy, maxDepth, columnLimit, detect, overrides);
    }

    public FlattenerConfig withOverride(JsonPath path, PathOverride override) {
        Map<JsonPath, PathOverride> more = new LinkedHashMap<>(overrides);
        more.put(path, override);
        return new FlattenerConfig(rootTable, typePolicy, maxDepth, columnLimit, detectTimestamps, more);
    }
}
