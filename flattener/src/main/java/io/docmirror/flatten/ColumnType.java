package io.docmirror.flatten;

import static java.util.Objects.requireNonNull;

/**
 * The SQL type of a column: {@code BOOLEAN}, {@code BIGINT}, {@code DOUBLE}, {@code DECIMAL(38,s)}, {@code VARCHAR},
 * {@code TIMESTAMP} (microseconds, UTC), {@code JSON} (JSON text) or a {@code LIST} of one of the scalar types.
 */
public record ColumnType(Kind kind, int scale, ColumnType element) {
    /** DECIMAL columns always have the widest precision Parquet and DuckDB share, so only the scale varies. */
    public static final int DECIMAL_PRECISION = 38;

    public static final ColumnType BOOLEAN = new ColumnType(Kind.BOOLEAN, 0, null);
    public static final ColumnType BIGINT = new ColumnType(Kind.BIGINT, 0, null);
    public static final ColumnType DOUBLE = new ColumnType(Kind.DOUBLE, 0, null);
    public static final ColumnType VARCHAR = new ColumnType(Kind.VARCHAR, 0, null);
    public static final ColumnType TIMESTAMP = new ColumnType(Kind.TIMESTAMP, 0, null);
    public static final ColumnType JSON = new ColumnType(Kind.JSON, 0, null);

    public enum Kind { BOOLEAN, BIGINT, DOUBLE, DECIMAL, VARCHAR, TIMESTAMP, JSON, LIST }

    /**
     * Every type's SQL text, spelled once: the flattener names the kept type of a conflict per conflicting value,
     * and compares these texts to find its tally.
     */
    private static final String[] DECIMAL_SQL = new String[DECIMAL_PRECISION + 1];
    private static final String[] DECIMAL_LIST_SQL = new String[DECIMAL_PRECISION + 1];
    private static final String[] LIST_SQL = new String[Kind.values().length];

    static {
        for (int scale = 0; scale <= DECIMAL_PRECISION; scale++) {
            DECIMAL_SQL[scale] = "DECIMAL(" + DECIMAL_PRECISION + "," + scale + ")";
            DECIMAL_LIST_SQL[scale] = DECIMAL_SQL[scale] + "[]";
        }
        for (Kind kind : Kind.values()) {
            LIST_SQL[kind.ordinal()] = kind.name() + "[]";
        }
    }

    public ColumnType {
        requireNonNull(kind, "kind is null");
        if (kind == Kind.DECIMAL && (scale < 0 || scale > DECIMAL_PRECISION)) {
            throw new IllegalArgumentException("DECIMAL scale must be within 0.." + DECIMAL_PRECISION + ": " + scale);
        }
        if (kind != Kind.DECIMAL && scale != 0) {
            throw new IllegalArgumentException(kind + " has no scale: " + scale);
        }
        if ((kind == Kind.LIST) != (element != null)) {
            throw new IllegalArgumentException("A LIST, and only a LIST, has an element type: " + kind);
        }
        if (element != null && (element.kind == Kind.LIST || element.kind == Kind.JSON)) {
            throw new IllegalArgumentException("A LIST holds scalars, not " + element.kind);
        }
    }

    public static ColumnType decimal(int scale) {
        return new ColumnType(Kind.DECIMAL, scale, null);
    }

    public static ColumnType list(ColumnType element) {
        return new ColumnType(Kind.LIST, 0, requireNonNull(element, "element is null"));
    }

    /** The type as DuckDB spells it: {@code DECIMAL(38,2)}, {@code VARCHAR[]}. */
    public String sql() {
        return switch (kind) {
            case DECIMAL -> DECIMAL_SQL[scale];
            case LIST -> element.kind == Kind.DECIMAL
                    ? DECIMAL_LIST_SQL[element.scale]
                    : LIST_SQL[element.kind.ordinal()];
            default -> kind.name();
        };
    }

    /** Parses what {@link #sql()} writes. */
    public static ColumnType parse(String sql) {
        if (sql.endsWith("[]")) {
            return list(parse(sql.substring(0, sql.length() - 2)));
        }
        if (sql.startsWith("DECIMAL(" + DECIMAL_PRECISION + ",") && sql.endsWith(")")) {
            return decimal(Integer.parseInt(sql.substring(11, sql.length() - 1)));
        }
        Kind kind = Kind.valueOf(sql);
        if (kind == Kind.DECIMAL || kind == Kind.LIST) {
            throw new IllegalArgumentException("Cannot parse column type: " + sql);
        }
        return new ColumnType(kind, 0, null);
    }

    @Override
    public String toString() {
        return sql();
    }
}
