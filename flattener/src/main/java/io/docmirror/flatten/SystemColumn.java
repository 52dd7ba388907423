package io.docmirror.flatten;

import java.util.List;

/**
 * A column every flattened row carries whatever its document holds, by its name in the tables. Root rows:
 * {@code id, _pk, _ts, _lsn, _etag, _is_deleted, _rid}. Child rows: {@code _id, _pk, _lsn, _idx, _row, _parent_row},
 * so that a child joins its parent on {@code (_id, _pk, _parent_row = _row)} and the document can be rebuilt
 * exactly. The history and the dead letters name their key columns the same way.
 */
public enum SystemColumn {
    /** The document's id, in a root row. */
    ID("id", ColumnType.VARCHAR),
    /** The document's partition key as JSON text ({@code "c-1"}, {@code 42}, {@code ["a",1]}). */
    PARTITION_KEY("_pk", ColumnType.VARCHAR),
    /** The store's {@code _ts} of the document's version, in epoch seconds. */
    TS("_ts", ColumnType.BIGINT),
    /** The log sequence number of the document's version in its feed range. */
    LSN("_lsn", ColumnType.BIGINT),
    ETAG("_etag", ColumnType.VARCHAR),
    IS_DELETED("_is_deleted", ColumnType.BOOLEAN),
    RID("_rid", ColumnType.VARCHAR),
    /** The document's id, in a child row. */
    DOCUMENT_ID("_id", ColumnType.VARCHAR),
    /** The element's index in its array. */
    INDEX("_idx", ColumnType.BIGINT),
    /** The element's row: what its own children name as their parent row. */
    ROW("_row", ColumnType.VARCHAR),
    /** The row of the element's parent: the root's or an enclosing element's. */
    PARENT_ROW("_parent_row", ColumnType.VARCHAR);

    /** A root row's system columns, in the order they start the row. */
    static final List<SystemColumn> ROOT = List.of(ID, PARTITION_KEY, TS, LSN, ETAG, IS_DELETED, RID);
    /** A child row's system columns, in the order they start the row. */
    static final List<SystemColumn> CHILD = List.of(DOCUMENT_ID, PARTITION_KEY, LSN, INDEX, ROW, PARENT_ROW);

    private final String columnName;
    private final ColumnType type;

    SystemColumn(String columnName, ColumnType type) {
        this.columnName = columnName;
        this.type = type;
    }

    /** The column's name in the tables. */
    public String columnName() {
        return columnName;
    }

    ColumnType type() {
        return type;
    }

    /** The column that holds the document's id: {@code id} in a root table, {@code _id} in a child table. */
    public static SystemColumn documentId(boolean root) {
        return root ? ID : DOCUMENT_ID;
    }
}
