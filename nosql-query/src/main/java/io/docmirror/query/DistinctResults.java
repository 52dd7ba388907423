package io.docmirror.query;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The results of a DISTINCT query: of the results that are equal ({@link JsonOrder#key}: numbers by value), the one
 * from the row first in the query's {@link SortOrder} (the first met, without ORDER BY). Every distinct result is
 * held until the last document is read, at most {@link NoSqlQuery#MAX_DISTINCT_RESULTS} of them: past that the
 * query is refused, not the server's memory exhausted.
 */
final class DistinctResults {
    private final SortOrder order;
    private final Map<String, SortedResult> firsts = new HashMap<>();

    DistinctResults(SortOrder order) {
        this.order = order;
    }

    /**
     * @throws QueryException (LIMIT_EXCEEDED) when the result would be one distinct result more than the limit
     */
    void add(SortedResult candidate) {
        String key = JsonOrder.key(candidate.result());
        SortedResult held = firsts.get(key);
        if (held == null) {
            if (firsts.size() == NoSqlQuery.MAX_DISTINCT_RESULTS) {
                throw new QueryException(QueryErrorCode.LIMIT_EXCEEDED, "Cannot run the query: DISTINCT meets more "
                        + "than " + NoSqlQuery.MAX_DISTINCT_RESULTS + " distinct results, the most a query may hold; "
                        + "narrow it with a filter (WHERE) or to one partition key value");
            }
            firsts.put(key, candidate);
        } else if (order.compare(candidate.key(), held.key()) < 0) {
            firsts.put(key, candidate);
        }
    }

    /** The distinct results, in the order of the rows they came from. */
    List<JsonNode> inOrder() {
        List<SortedResult> results = new ArrayList<>(firsts.values());
        results.sort(order.ofResults());
        return results.stream().map(SortedResult::result).toList();
    }
}
