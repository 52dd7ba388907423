package io.docmirror.query;

/**
 * Where a row stands among the rows of the documents a query runs over, in the order ORDER BY breaks ties by:
 * first the document's tie-break number (which a store may give, such as the order its documents were created in;
 * 0 otherwise), then the document's index in the order given, then the row's index among the rows of its document
 * (a JOIN makes several). Two rows never share a position.
 */
record RowPosition(long tieBreak, long document, long row) implements Comparable<RowPosition> {
    RowPosition {
        if (document < 0 || row < 0) {
            throw new IllegalArgumentException("negative position: document " + document + ", row " + row);
        }
    }

    @Override
    public int compareTo(RowPosition other) {
        int result = Long.compare(tieBreak, other.tieBreak);
        if (result == 0) {
            result = Long.compare(document, other.document);
        }
        return result != 0 ? result : Long.compare(row, other.row);
    }
}
