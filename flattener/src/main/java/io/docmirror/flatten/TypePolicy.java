package io.docmirror.flatten;

import java.util.Arrays;
import java.util.Optional;

/**
 * What the flattener does when a path holds values of different types across documents.
 */
public enum TypePolicy {
    /**
     * The default. The first value of a path names its column; numbers widen (BIGINT, DOUBLE, DECIMAL) while that
     * stays exact; any other value goes to a variant column {@code <name>__<type>}. Nothing is lost.
     */
    LOSSLESS("lossless"),
    /**
     * Cosmos DB analytical store's well-defined schema (NoSQL accounts): the first non-null type of a path wins,
     * numbers widen, and a value of another type becomes NULL. Each such loss is counted with sample ids.
     */
    WELL_DEFINED("well-defined"),
    /**
     * Cosmos DB's full-fidelity schema (the MongoDB API): every value column carries its type as a suffix
     * ({@code rating__bigint}, {@code rating__varchar}), so no two types ever share a column.
     */
    FULL_FIDELITY("full-fidelity");

    private final String configValue;

    TypePolicy(String configValue) {
        this.configValue = configValue;
    }

    /** The spelling in configuration files: {@code lossless}, {@code well-defined}, {@code full-fidelity}. */
    public String configValue() {
        return configValue;
    }

    /** The value of this spelling, if it is one. */
    public static Optional<TypePolicy> find(String configValue) {
        return Arrays.stream(values()).filter(policy -> policy.configValue.equals(configValue)).findFirst();
    }

    public static TypePolicy fromConfigValue(String value) {
        return find(value)
                .orElseThrow(() -> new IllegalArgumentException("Unknown type policy '" + value
                        + "': expected lossless, well-defined or full-fidelity"));
    }
}
