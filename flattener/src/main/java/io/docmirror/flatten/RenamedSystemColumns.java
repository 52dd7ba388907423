package io.docmirror.flatten;

import java.util.Map;

/**
 * System columns whose names changed since an earlier version, so that a mirror made by that version can rename
 * them in its tables when it is opened: {@code _deleted} became {@code _is_deleted}, because Iceberg reserves
 * {@code _deleted} for a metadata column and Spark refuses a table with a column of that name.
 */
public final class RenamedSystemColumns {
    /** The root table's renamed system columns: the earlier name, then today's. */
    public static final Map<String, String> ROOT = Map.of(
            "_deleted", SystemColumn.IS_DELETED.columnName());

    private RenamedSystemColumns() {
    }
}
