package io.docmirror.layout;

/**
 * What the mirror records of its tables in Iceberg's own metadata, so that a reader needs nothing else to describe
 * them (the SQL endpoint's {@code docmirror_tables}, {@code docmirror_columns} and {@code docmirror_conflicts}).
 * Each column's JSON path is its field's doc.
 */
public final class MirrorProperties {
    /** Namespace: the store's resource id ({@code _rid}) of the container the tables mirror; never reused. */
    public static final String CONTAINER_RID = "docmirror.container-rid";
    /** Namespace: the name of the container's root table. */
    public static final String ROOT_TABLE = "docmirror.root-table";
    /** Table: what the table holds: {@code root}, {@code child}, {@code history} or {@code dead-letters}. */
    public static final String TABLE_ROLE = "docmirror.table-role";
    public static final String ROOT = "root";
    public static final String CHILD = "child";
    public static final String HISTORY = "history";
    public static final String DEAD_LETTERS = "dead-letters";
    /** Table: the table whose rows a child table's rows belong to; absent on the root table. */
    public static final String PARENT = "docmirror.parent";
    /** Table: the JSON path of the rows ({@code $} for the root, {@code $.items[*]} for a child table). */
    public static final String JSON_PATH = "docmirror.json-path";
    /**
     * Table: why each column exists, as a JSON object from column name to role ({@code system}, {@code value},
     * {@code variant}, {@code list}, {@code json}, {@code empty}, {@code overflow}).
     */
    public static final String COLUMN_ROLES = "docmirror.column-roles";
    /**
     * Root table: the values that did not fit their path's column, as a JSON array of objects with {@code table},
     * {@code jsonPath}, {@code keptType}, {@code seenType}, {@code resolution}, {@code count} and {@code sampleIds}.
     */
    public static final String CONFLICTS = "docmirror.conflicts";

    /**
     * Root table: the container's analytical TTL in seconds ({@code -1}: rows stay forever). Readers leave out the
     * rows of documents whose {@code _ts} is older.
     */
    public static final String ANALYTICAL_TTL = "docmirror.analytical-ttl";

    private MirrorProperties() {
    }
}
