package io.docmirror.flatten;

import java.util.Arrays;
import java.util.Optional;

/** A per-path instruction from a container's mirror configuration that replaces the inferred representation. */
public enum PathOverride {
    /** Keep the value at this path as JSON text in one column, whatever its shape. */
    JSON("json"),
    /** Normalise the array at this path into a child table, even when its elements are scalars. */
    CHILD_TABLE("child-table"),
    /** Flatten the object at this path into columns, even below the configured maximum depth. */
    FLATTEN("flatten"),
    /** Leave the value at this path out of the mirror (a deliberate loss, shown in the catalog's configuration). */
    DROP("drop");

    private final String configValue;

    PathOverride(String configValue) {
        this.configValue = configValue;
    }

    public String configValue() {
        return configValue;
    }

    /** The value of this spelling, if it is one. */
    public static Optional<PathOverride> find(String configValue) {
        return Arrays.stream(values()).filter(override -> override.configValue.equals(configValue)).findFirst();
    }

    public static PathOverride fromConfigValue(String value) {
        return find(value)
                .orElseThrow(() -> new IllegalArgumentException("Unknown path override '" + value
                        + "': expected json, child-table, flatten or drop"));
    }
}
