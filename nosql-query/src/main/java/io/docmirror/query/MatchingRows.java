package io.docmirror.query;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.Map;
import java.util.function.ToLongFunction;

/**
 * The rows of a query's FROM clause that its filter matches, in the order of the documents, each with its
 * {@link RowPosition}, made one at a time: however many documents there are, none is held once its rows are made.
 */
final class MatchingRows {
    /** Takes the rows one at a time. */
    @FunctionalInterface
    interface Visitor {
        /** @return whether to go on to the next row */
        boolean visit(Row row, RowPosition position);
    }

    private final QueryModel model;

    MatchingRows(QueryModel model) {
        this.model = model;
    }

    /**
     * Hands the visitor each matching row from a position on, until it answers false or the page's budget is spent.
     * The rows of the documents before it are not made. A query without FROM has one row, without variables, at
     * document 0 and row 0.
     *
     * @param tieBreak each document's tie-break number (see {@link RowPosition})
     * @return where the budget ran out: the first row not made; null when the rows ran out or the visitor stopped
     * @throws QueryException (CANCELLED) when nobody waits for the page any more
     */
    RowPosition visit(Iterable<? extends JsonNode> documents, ToLongFunction<? super JsonNode> tieBreak,
            long startDocument, long startRow, PageBudget budget, Visitor visitor) {
        budget.start();
        if (model.from() == null) {
            Row only = new Row(Map.of());
            if (startDocument == 0 && startRow == 0 && matches(only)) {
                visitor.visit(only, new RowPosition(0, 0, 0));
            }
            return null;
        }
        long documentIndex = 0;
        RowPosition[] stoppedAt = {null};
        for (JsonNode document : documents) {
            if (documentIndex >= startDocument && !visitRows(document, documentIndex, tieBreak.applyAsLong(document),
                    documentIndex == startDocument ? startRow : 0, budget, visitor, stoppedAt)) {
                return stoppedAt[0];
            }
            documentIndex++;
        }
        return null;
    }

    private boolean visitRows(JsonNode document, long documentIndex, long tieBreak, long startRow, PageBudget budget,
            Visitor visitor, RowPosition[] stoppedAt) {
        long[] rowIndex = {0};
        return model.from().forEachRow(document, row -> {
            long index = rowIndex[0]++;
            if (index < startRow) {
                // Given by an earlier page: not counted, so that every page goes further than the one before.
                return true;
            }
            RowPosition position = new RowPosition(tieBreak, documentIndex, index);
            if (!budget.take()) {
                stoppedAt[0] = position;
                return false;
            }
            return !matches(row) || visitor.visit(row, position);
        });
    }

    private boolean matches(Row row) {
        return model.where() == null || BinaryOperation.isTrue(model.where().evaluate(row));
    }
}
