package io.docmirror.flatten;

import java.util.List;

/**
 * The columns every row carries whatever its document holds. Root rows: {@code id, _pk, _ts, _lsn, _etag, _is_deleted,
 * _rid}. Child rows: {@code _id, _pk, _lsn, _idx, _row, _parent_row}, so that a child joins its parent on
 * {@code (_id, _pk, _parent_row = _row)} and the document can be rebuilt exactly.
 */
final class SystemColumns {
    static final int ID = 0;
    static final int PK = 1;
    static final int TS = 2;
    static final int LSN = 3;
    static final int ETAG = 4;
    static final int DELETED = 5;
    static final int RID = 6;

    static final int CHILD_ID = 0;
    static final int CHILD_PK = 1;
    static final int CHILD_LSN = 2;
    static final int CHILD_IDX = 3;
    static final int CHILD_ROW = 4;
    static final int CHILD_PARENT_ROW = 5;

    record Definition(String name, ColumnType type) {
    }

    static final List<Definition> ROOT = List.of(
            new Definition("id", ColumnType.VARCHAR),
            new Definition("_pk", ColumnType.VARCHAR),
            new Definition("_ts", ColumnType.BIGINT),
            new Definition("_lsn", ColumnType.BIGINT),
            new Definition("_etag", ColumnType.VARCHAR),
            new Definition("_is_deleted", ColumnType.BOOLEAN),
            new Definition("_rid", ColumnType.VARCHAR));

    static final List<Definition> CHILD = List.of(
            new Definition("_id", ColumnType.VARCHAR),
            new Definition("_pk", ColumnType.VARCHAR),
            new Definition("_lsn", ColumnType.BIGINT),
            new Definition("_idx", ColumnType.BIGINT),
            new Definition("_row", ColumnType.VARCHAR),
            new Definition("_parent_row", ColumnType.VARCHAR));

    /** The store's system properties of a document's root: they fill system columns instead of value columns. */
    static final List<String> DOCUMENT_PROPERTIES = List.of("id", "_rid", "_etag", "_ts", "_lsn");

    static final String EMPTY = "_empty";
    static final String OVERFLOW = "_overflow";
    /** Value columns of a child row whose array element is not an object are named after this. */
    static final String ELEMENT_VALUE = "value";

    private SystemColumns() {
    }
}
