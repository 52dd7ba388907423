package io.docmirror.query;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.ToLongFunction;

/**
 * Runs a {@link QueryModel} over documents, a page at a time, reading the documents once per page and holding what
 * the page needs rather than the documents:
 * <ul>
 *   <li>a query that streams (filters and projections, TOP, OFFSET LIMIT) reads from where the last page stopped,
 *       and holds the page's results;</li>
 *   <li>ORDER BY keeps the best rows of the page in a bounded heap ({@link TopResults}), and the next page keeps only
 *       rows after the last one given (keyset paging): OFFSET more results, on the first page only;</li>
 *   <li>GROUP BY and aggregates fold each row into its group ({@link Grouping}): a group, not its rows;</li>
 *   <li>DISTINCT keeps each distinct result once ({@link DistinctResults}).</li>
 * </ul>
 * Groups and distinct results are computed again for each page, which skips the results given before.
 */
final class QueryExecution {
    /** Ties broken by the order the documents are given in alone. */
    static final ToLongFunction<JsonNode> DOCUMENT_ORDER = document -> 0;

    private final QueryModel model;
    private final MatchingRows rows;

    QueryExecution(QueryModel model) {
        this.model = model;
        this.rows = new MatchingRows(model);
    }

    /**
     * @param from where the page starts; null for the first
     * @throws QueryException (INVALID_CONTINUATION) when {@code from} is not of the shape this query gives out
     */
    QueryPage page(Iterable<? extends JsonNode> documents, ToLongFunction<? super JsonNode> tieBreak,
            QueryContinuation from, int maxItemCount, PageBudget budget) {
        if (model.isGrouped()) {
            return skipGiven(groupedResults(documents, budget), continuation(QueryContinuation.SkipGiven.class, from),
                    maxItemCount);
        }
        if (model.distinct()) {
            // Without ORDER BY there are no ties to break: DISTINCT keeps the first result met, in the order given.
            return skipGiven(distinctResults(documents, model.orderBy().isEmpty() ? DOCUMENT_ORDER : tieBreak,
                    budget), continuation(QueryContinuation.SkipGiven.class, from), maxItemCount);
        }
        if (!model.orderBy().isEmpty()) {
            return sortedPage(documents, tieBreak, continuation(QueryContinuation.SortedAfter.class, from),
                    maxItemCount, budget);
        }
        QueryContinuation.ReadFrom start = continuation(QueryContinuation.ReadFrom.class, from);
        return streamedPage(documents, start == null ? QueryContinuation.ReadFrom.START : start, maxItemCount,
                budget);
    }

    /** Runs the visitor over every row; a query that must see them all is refused once its budget is spent. */
    private void visitAll(Iterable<? extends JsonNode> documents, ToLongFunction<? super JsonNode> tieBreak,
            PageBudget budget, MatchingRows.Visitor visitor) {
        if (rows.visit(documents, tieBreak, 0, 0, budget, visitor) != null) {
            throw budget.exceeded();
        }
    }

    /** The continuation as the shape this query gives out; null for the first page. */
    private static <T extends QueryContinuation> T continuation(Class<T> shape, QueryContinuation from) {
        if (from != null && !shape.isInstance(from)) {
            throw QueryContinuation.notGivenOut(from.token());
        }
        return shape.cast(from);
    }

    /**
     * Filters and projects rows in document order, stopping once the page is full, or where its budget ran out (the
     * page then holds what it found, possibly nothing, and its continuation reads on from there).
     */
    private QueryPage streamedPage(Iterable<? extends JsonNode> documents, QueryContinuation.ReadFrom from,
            int maxItemCount, PageBudget budget) {
        long remaining = model.maxResults() - from.given();
        // Results are given only once the offset is used up: a continuation that gave any has none left to skip.
        long[] toSkip = {from.given() > 0 ? 0 : model.offset().orElse(0)};
        List<JsonNode> results = new ArrayList<>();
        RowPosition[] next = {null};
        RowPosition stoppedAt = rows.visit(documents, DOCUMENT_ORDER, from.documents(), from.rows(), budget,
                (row, position) -> {
            if (results.size() >= remaining) {
                return false;
            }
            if (results.size() == maxItemCount) {
                next[0] = position;
                return false;
            }
            JsonNode result = model.selection().project(row);
            if (result != null && toSkip[0] > 0) {
                toSkip[0]--;
            } else if (result != null) {
                results.add(result);
            }
            return true;
        });
        if (stoppedAt != null && results.size() < remaining) {
            next[0] = stoppedAt;
        }
        Optional<String> continuation = Optional.ofNullable(next[0]).map(position -> new QueryContinuation.ReadFrom(
                position.document(), position.row(), from.given() + results.size()).token());
        return new QueryPage(results, continuation);
    }

    /**
     * The page of an ORDER BY query: the rows after the last one given (all rows for the first page) offered to a
     * heap that keeps the first OFFSET (first page only) + page size + 1 of them; the one more tells whether there is
     * a next page.
     */
    private QueryPage sortedPage(Iterable<? extends JsonNode> documents, ToLongFunction<? super JsonNode> tieBreak,
            QueryContinuation.SortedAfter after, int maxItemCount, PageBudget budget) {
        SortOrder order = new SortOrder(model.orderBy());
        if (after != null && after.last().values().size() != order.size()) {
            throw QueryContinuation.notGivenOut(after.token());
        }
        long given = after == null ? 0 : after.given();
        long skip = after == null ? model.offset().orElse(0) : 0;
        if (skip > NoSqlQuery.MAX_SORTED_OFFSET) {
            throw new QueryException(QueryErrorCode.LIMIT_EXCEEDED, "Cannot run the query: OFFSET " + skip
                    + " with ORDER BY is over the limit of " + NoSqlQuery.MAX_SORTED_OFFSET + " (the rows skipped are "
                    + "held while they are sorted); read the results page by page with continuations, or filter on "
                    + "the sort values (WHERE) instead of skipping");
        }
        long take = Math.min(maxItemCount, model.maxResults() - given);
        if (take <= 0) {
            return new QueryPage(List.of(), Optional.empty());
        }
        TopResults top = new TopResults(order, skip + take + 1);
        visitAll(documents, tieBreak, budget, (row, position) -> {
            SortKey key = order.keyOf(row, position);
            if ((after == null || order.compare(key, after.last()) > 0) && top.admits(key)) {
                JsonNode result = model.selection().project(row);
                if (result != null) {
                    top.add(new SortedResult(key, result));
                }
            }
            return true;
        });
        List<SortedResult> kept = top.inOrder();
        List<SortedResult> page = kept.subList((int) Math.min(skip, kept.size()),
                (int) Math.min(skip + take, kept.size()));
        boolean more = kept.size() > skip + take && given + take < model.maxResults();
        Optional<String> continuation = more
                ? Optional.of(new QueryContinuation.SortedAfter(page.get(page.size() - 1).key(), given + take).token())
                : Optional.empty();
        if (continuation.isPresent() && continuation.get().length() > NoSqlQuery.MAX_CONTINUATION_LENGTH) {
            throw new QueryException(QueryErrorCode.LIMIT_EXCEEDED, "Cannot page the query: its next page would "
                    + "start after the sort values of the last row given, and they take " + continuation.get().length()
                    + " characters, over the " + NoSqlQuery.MAX_CONTINUATION_LENGTH + " a continuation may carry in "
                    + "a request header; order by a shorter value, or ask for all results in one page");
        }
        return new QueryPage(page.stream().map(SortedResult::result).toList(), continuation);
    }

    /** Every group's result, in the order the groups' first rows came. */
    private List<JsonNode> groupedResults(Iterable<? extends JsonNode> documents, PageBudget budget) {
        Grouping grouping = new Grouping(model);
        visitAll(documents, DOCUMENT_ORDER, budget, (row, position) -> {
            grouping.add(row);
            return true;
        });
        List<JsonNode> results = new ArrayList<>();
        for (Group group : grouping.groups()) {
            JsonNode result = model.selection().project(group);
            if (result != null) {
                results.add(result);
            }
        }
        return results;
    }

    /** Every distinct result, in the query's order (that of the documents, without ORDER BY). */
    private List<JsonNode> distinctResults(Iterable<? extends JsonNode> documents,
            ToLongFunction<? super JsonNode> tieBreak, PageBudget budget) {
        SortOrder order = new SortOrder(model.orderBy());
        DistinctResults distinct = new DistinctResults(order);
        visitAll(documents, tieBreak, budget, (row, position) -> {
            JsonNode result = model.selection().project(row);
            if (result != null) {
                distinct.add(new SortedResult(order.keyOf(row, position), result));
            }
            return true;
        });
        return distinct.inOrder();
    }

    /** The page of results after OFFSET and those given before, within TOP and LIMIT. */
    private QueryPage skipGiven(List<JsonNode> results, QueryContinuation.SkipGiven from, int maxItemCount) {
        long given = from == null ? 0 : from.given();
        // A token is hostile input: its count may be anything up to Long.MAX_VALUE, which OFFSET must not overflow.
        long start = Math.min(Math.min(model.offset().orElse(0), results.size()) + Math.min(given, results.size()),
                results.size());
        long take = Math.min(maxItemCount, model.maxResults() - given);
        long end = Math.min(start + Math.max(take, 0), results.size());
        boolean more = end < results.size() && given + take < model.maxResults();
        Optional<String> continuation = more
                ? Optional.of(new QueryContinuation.SkipGiven(given + (end - start)).token()) : Optional.empty();
        return new QueryPage(results.subList((int) start, (int) end), continuation);
    }
}
