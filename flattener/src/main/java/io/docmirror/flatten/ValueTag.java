package io.docmirror.flatten;

/**
 * The kind of value a value column holds, and the suffix its name gets when it is a variant (or, in the
 * full-fidelity policy, always): {@code rating__varchar}, {@code zip__bigint}, {@code tags__varchar_list}.
 */
public enum ValueTag {
    BOOLEAN("boolean"),
    /** Any number: the column widens BIGINT, DOUBLE, DECIMAL(38,s) as values require. Only a path's value column. */
    NUMERIC("numeric"),
    BIGINT("bigint"),
    DOUBLE("double"),
    DECIMAL("decimal"),
    /** A number no BIGINT, DOUBLE or DECIMAL(38) holds exactly (1e400, 40-digit integers), kept as its literal text. */
    NUMBER("number"),
    VARCHAR("varchar"),
    TIMESTAMP("timestamp"),
    JSON("json"),
    BOOLEAN_LIST("boolean_list"),
    NUMERIC_LIST("numeric_list"),
    VARCHAR_LIST("varchar_list"),
    TIMESTAMP_LIST("timestamp_list");

    private final String suffix;

    ValueTag(String suffix) {
        this.suffix = suffix;
    }

    public String suffix() {
        return suffix;
    }

    public boolean isList() {
        return this == BOOLEAN_LIST || this == NUMERIC_LIST || this == VARCHAR_LIST || this == TIMESTAMP_LIST;
    }

    public static ValueTag fromSuffix(String suffix) {
        for (ValueTag tag : values()) {
            if (tag.suffix.equals(suffix)) {
                return tag;
            }
        }
        throw new IllegalArgumentException("Unknown value tag: " + suffix);
    }
}
