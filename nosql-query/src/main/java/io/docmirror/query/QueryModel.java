package io.docmirror.query;

import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * A parsed and checked query: its clauses as expressions, with the text of the clauses a rewritten query repeats.
 *
 * @param from the FROM clause, null for a query without one ({@code SELECT 1})
 * @param where the filter, null when there is none
 * @param fromText the FROM clause's text from after FROM, joins included; null without FROM
 * @param whereText the filter's text, null when there is none
 * @param groupByTexts the text of each GROUP BY expression
 */
record QueryModel(
        boolean distinct,
        OptionalLong top,
        Selection selection,
        FromClause from,
        Expression where,
        List<Expression> groupBy,
        List<SortItem> orderBy,
        OptionalLong offset,
        OptionalLong limit,
        String fromText,
        String whereText,
        List<String> groupByTexts) {
    QueryModel {
        Objects.requireNonNull(top, "top is null");
        Objects.requireNonNull(selection, "selection is null");
        Objects.requireNonNull(offset, "offset is null");
        Objects.requireNonNull(limit, "limit is null");
        groupBy = List.copyOf(groupBy);
        orderBy = List.copyOf(orderBy);
        groupByTexts = List.copyOf(groupByTexts);
    }

    /** Whether rows fold into groups: GROUP BY, or an aggregate in the select list. */
    boolean isGrouped() {
        return !groupBy.isEmpty() || selection.expressions().stream().anyMatch(Expression::containsAggregate);
    }

    /** Whether every result is known only once all documents are read (sorting, grouping, duplicates). */
    boolean needsAllRows() {
        return isGrouped() || !orderBy.isEmpty() || distinct;
    }

    /** How many results to give at most, after OFFSET: TOP or LIMIT, whichever is smaller. */
    long maxResults() {
        long most = Long.MAX_VALUE;
        if (top.isPresent()) {
            most = top.getAsLong();
        }
        if (limit.isPresent()) {
            most = Math.min(most, limit.getAsLong());
        }
        return most;
    }
}
