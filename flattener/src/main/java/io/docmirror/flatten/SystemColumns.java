package io.docmirror.flatten;

import java.util.List;

/**
 * Where the system columns ({@link SystemColumn}) are in a row, and the names of the flattener's other columns of its
 * own making.
 */
final class SystemColumns {
    static final int ID = SystemColumn.ROOT.indexOf(SystemColumn.ID);
    static final int PK = SystemColumn.ROOT.indexOf(SystemColumn.PARTITION_KEY);
    static final int TS = SystemColumn.ROOT.indexOf(SystemColumn.TS);
    static final int LSN = SystemColumn.ROOT.indexOf(SystemColumn.LSN);
    static final int ETAG = SystemColumn.ROOT.indexOf(SystemColumn.ETAG);
    static final int DELETED = SystemColumn.ROOT.indexOf(SystemColumn.IS_DELETED);
    static final int RID = SystemColumn.ROOT.indexOf(SystemColumn.RID);

    static final int CHILD_ID = SystemColumn.CHILD.indexOf(SystemColumn.DOCUMENT_ID);
    static final int CHILD_PK = SystemColumn.CHILD.indexOf(SystemColumn.PARTITION_KEY);
    static final int CHILD_LSN = SystemColumn.CHILD.indexOf(SystemColumn.LSN);
    static final int CHILD_IDX = SystemColumn.CHILD.indexOf(SystemColumn.INDEX);
    static final int CHILD_ROW = SystemColumn.CHILD.indexOf(SystemColumn.ROW);
    static final int CHILD_PARENT_ROW = SystemColumn.CHILD.indexOf(SystemColumn.PARENT_ROW);

    /** The store's system properties of a document's root: they fill system columns instead of value columns. */
    static final List<String> DOCUMENT_PROPERTIES = List.of(SystemColumn.ID.columnName(),
            SystemColumn.RID.columnName(), SystemColumn.ETAG.columnName(), SystemColumn.TS.columnName(),
            SystemColumn.LSN.columnName());

    static final String EMPTY = "_empty";
    static final String OVERFLOW = "_overflow";
    /** Value columns of a child row whose array element is not an object are named after this. */
    static final String ELEMENT_VALUE = "value";

    private SystemColumns() {
    }
}
