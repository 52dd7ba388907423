package io.docmirror.flatten;

import io.docmirror.config.ConfigOption;
import io.docmirror.config.ConfigRule;
import io.docmirror.config.ConfigSection;
import io.docmirror.config.ConfigType;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import static java.util.Objects.requireNonNull;

/**
 * How one container's documents become tables ({@code flatten.*}). Every option is declared once below, with its
 * rule and a default that suits a first mirror; docs/configuration.md is generated from the declarations.
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
    public static final ConfigOption TYPE_POLICY = new ConfigOption("flatten.type-policy", ConfigType.STRING,
            TypePolicy.LOSSLESS.configValue(),
            "`lossless`: a value whose type differs from its column's goes to a variant column `<name>__<type>`. "
                    + "`well-defined`: Cosmos NoSQL behaviour, the first type wins and other values become NULL "
                    + "(counted in the conflicts). `full-fidelity`: Cosmos for MongoDB behaviour, every value column "
                    + "carries its type suffix.")
            .withRule(oneOf(TypePolicy.values(), TypePolicy::configValue));
    public static final ConfigOption MAX_DEPTH = new ConfigOption("flatten.max-depth", ConfigType.INTEGER, "10",
            "Nested objects become `a__b` columns down to this many levels below a row; deeper structure is kept as "
                    + "JSON text.")
            .withRule(ConfigRule.atLeast(1));
    /** Root and child tables need their system columns plus {@code _empty}, {@code _overflow} and one value column. */
    private static final int MIN_COLUMN_LIMIT = SystemColumn.ROOT.size() + 3;
    public static final ConfigOption COLUMN_LIMIT = new ConfigOption("flatten.column-limit", ConfigType.INTEGER,
            "1000", "The most columns a table has, system columns included (two places are kept for `_empty` and "
                    + "`_overflow`). Properties past it go to `_overflow` and are reported.")
            .withRule(ConfigRule.atLeast(MIN_COLUMN_LIMIT));
    public static final ConfigOption DETECT_TIMESTAMPS = new ConfigOption("flatten.detect-timestamps",
            ConfigType.BOOLEAN, "false",
            "Strings in the canonical ISO-8601 UTC form (`2024-05-01T12:00:00Z`, optional `.SSS` or `.SSSSSS`) "
                    + "become TIMESTAMP columns. Off by default, as in Cosmos DB, where dates stay strings.");
    public static final ConfigOption OVERRIDES = ConfigOption.withoutDefault("flatten.overrides", ConfigType.MAPPING,
            "Map of JSON path to `json` (keep as JSON text), `child-table` (normalise the array into a child table, "
                    + "scalars in a `value` column), `flatten` (flatten the object below the maximum depth) or "
                    + "`drop` (leave out). Example: `{\"$.meta\": \"json\", \"$.items[*].attributes\": \"flatten\", "
                    + "\"$.secret\": \"drop\"}`. In YAML: `flatten: {overrides: {\"$.meta\": json}}`.")
            .withRule(oneOf(PathOverride.values(), PathOverride::configValue));

    public static final String PREFIX = "flatten.";
    public static final List<ConfigOption> OPTIONS = List.of(TYPE_POLICY, MAX_DEPTH, COLUMN_LIMIT, DETECT_TIMESTAMPS,
            OVERRIDES);

    public FlattenerConfig {
        requireNonNull(rootTable, "rootTable is null");
        requireNonNull(typePolicy, "typePolicy is null");
        if (rootTable.isEmpty()) {
            throw new IllegalArgumentException("Invalid value '' for configuration rootTable: a table needs a name");
        }
        MAX_DEPTH.check(maxDepth);
        COLUMN_LIMIT.check(columnLimit);
        overrides = Map.copyOf(requireNonNull(overrides, "overrides is null"));
    }

    /**
     * Reads the {@code flatten.*} entries of a config file, flattened to dotted keys; overrides are the entries
     * {@code flatten.overrides.<JSON path>}. Missing keys take their defaults.
     *
     * @throws IllegalArgumentException "Invalid value X for configuration Y: reason", or for an unknown key
     */
    public static FlattenerConfig fromProperties(String rootTable, Map<String, String> properties) {
        ConfigSection section = ConfigSection.of(PREFIX, OPTIONS, properties);
        String policy = section.text(TYPE_POLICY).trim();
        Map<JsonPath, PathOverride> overrides = new LinkedHashMap<>();
        section.mapping(OVERRIDES).forEach((path, value) -> overrides.put(overridePath(path),
                PathOverride.find(value.trim()).orElseThrow(() -> ConfigSection.invalid(OVERRIDES.key() + "." + path,
                        value, "must be " + OVERRIDES.rule().text()))));
        return new FlattenerConfig(rootTable,
                TypePolicy.find(policy).orElseThrow(() -> TYPE_POLICY.invalid(policy,
                        "must be " + TYPE_POLICY.rule().text())),
                section.intValue(MAX_DEPTH), section.intValue(COLUMN_LIMIT), section.booleanValue(DETECT_TIMESTAMPS),
                overrides);
    }

    /** The rule that a value is the spelling of one of {@code values}. */
    private static <E extends Enum<E>> ConfigRule oneOf(E[] values, Function<E, String> spelling) {
        return ConfigRule.oneOf(Arrays.stream(values).map(spelling).toArray(String[]::new));
    }

    private static JsonPath overridePath(String path) {
        try {
            return JsonPath.parse(path);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("Invalid configuration " + OVERRIDES.key() + "." + path + ": "
                    + e.getMessage(), e);
        }
    }

    /** The defaults for a container. */
    public static FlattenerConfig defaults(String rootTable) {
        return fromProperties(rootTable, Map.of());
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
