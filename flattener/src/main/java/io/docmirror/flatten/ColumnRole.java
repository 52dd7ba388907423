package io.docmirror.flatten;

/** Why a column exists; the SQL catalog's {@code docmirror_columns.role}. */
public enum ColumnRole {
    /** {@code id}, {@code _pk}, {@code _ts}, {@code _lsn}, {@code _etag}, {@code _is_deleted}, {@code _rid}; in child tables {@code _id}, {@code _idx}, {@code _row}, {@code _parent_row}. */
    SYSTEM,
    /** The values of one path, in the type its first value chose (widened when that stays exact). */
    VALUE,
    /** The values of one path whose type differs from the path's value column: {@code <name>__<type>}. */
    VARIANT,
    /** An array of one scalar type, as a LIST. */
    LIST,
    /** JSON text: mixed arrays, arrays of arrays, and objects deeper than the flattening depth. */
    JSON,
    /** {@code _empty}: the row's explicit nulls, empty objects and empty arrays, which no column can tell from a missing property. */
    EMPTY,
    /** {@code _overflow}: properties past the table's column limit, as a partial JSON document. */
    OVERFLOW;

    public String catalogName() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
