package io.docmirror.query;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * What a gateway answers to the SDKs' query-plan request ({@code x-ms-cosmos-is-query-plan-request: True}): the work
 * the SDK does itself after reading every partition key range (merge-sort, DISTINCT, TOP, OFFSET LIMIT, aggregates,
 * grouping) and the rewritten query it sends each range in place of the user's (empty when the user's own serves).
 * See {@code package-info.java} for how a query travels.
 *
 * @param distinctType {@code None}, {@code Ordered} (DISTINCT with ORDER BY) or {@code Unordered}
 * @param orderBy {@code Ascending} or {@code Descending} for each ORDER BY item
 * @param orderByExpressions each ORDER BY item's text; the SDK builds resume filters from them
 * @param groupByAliases the select list's names, in order, for a grouped select list
 * @param aggregates the aggregate of a {@code SELECT VALUE} aggregate ({@code Count}, {@code Sum}, {@code Average},
 *     {@code Min}, {@code Max})
 * @param groupByAliasToAggregateType for a grouped select list, each name's aggregate, or null for a GROUP BY value
 * @param rewrittenQuery the query each range runs; ORDER BY queries hold the placeholder
 *     {@value #ORDER_BY_FILTER_PLACEHOLDER}, which the SDK replaces with {@code true} or a resume filter
 */
public record QueryPlan(
        String distinctType,
        OptionalLong top,
        OptionalLong offset,
        OptionalLong limit,
        List<String> orderBy,
        List<String> orderByExpressions,
        List<String> groupByExpressions,
        List<String> groupByAliases,
        List<String> aggregates,
        Map<String, String> groupByAliasToAggregateType,
        String rewrittenQuery,
        boolean hasSelectValue) {
    /** The version of the plan's format the SDKs read. */
    public static final int VERSION = 2;
    /** What an ORDER BY query's rewritten WHERE holds for the SDK to fill in. */
    public static final String ORDER_BY_FILTER_PLACEHOLDER = "{documentdb-formattableorderbyquery-filter}";

    public QueryPlan {
        Objects.requireNonNull(distinctType, "distinctType is null");
        Objects.requireNonNull(top, "top is null");
        Objects.requireNonNull(offset, "offset is null");
        Objects.requireNonNull(limit, "limit is null");
        orderBy = List.copyOf(orderBy);
        orderByExpressions = List.copyOf(orderByExpressions);
        groupByExpressions = List.copyOf(groupByExpressions);
        groupByAliases = List.copyOf(groupByAliases);
        aggregates = List.copyOf(aggregates);
        // Values may be null (a GROUP BY value, not an aggregate): Map.copyOf refuses those.
        groupByAliasToAggregateType = Collections.unmodifiableMap(new LinkedHashMap<>(groupByAliasToAggregateType));
        Objects.requireNonNull(rewrittenQuery, "rewrittenQuery is null");
    }

    /**
     * The body of the query-plan response, with one query range covering every partition key
     * ({@code ["", "FF")}); a gateway that narrows a query to some ranges replaces {@code queryRanges}.
     */
    public ObjectNode toJson() {
        JsonNodeFactory nodes = JsonNodeFactory.instance;
        ObjectNode queryInfo = nodes.objectNode();
        queryInfo.put("distinctType", distinctType);
        putOptional(queryInfo, "top", top);
        putOptional(queryInfo, "offset", offset);
        putOptional(queryInfo, "limit", limit);
        putStrings(queryInfo.putArray("orderBy"), orderBy);
        putStrings(queryInfo.putArray("orderByExpressions"), orderByExpressions);
        putStrings(queryInfo.putArray("groupByExpressions"), groupByExpressions);
        putStrings(queryInfo.putArray("groupByAliases"), groupByAliases);
        putStrings(queryInfo.putArray("aggregates"), aggregates);
        ObjectNode aliasToAggregate = queryInfo.putObject("groupByAliasToAggregateType");
        groupByAliasToAggregateType.forEach(aliasToAggregate::put);
        queryInfo.put("rewrittenQuery", rewrittenQuery);
        queryInfo.put("hasSelectValue", hasSelectValue);
        queryInfo.put("hasNonStreamingOrderBy", false);

        ObjectNode plan = nodes.objectNode();
        plan.put("partitionedQueryExecutionInfoVersion", VERSION);
        plan.set("queryInfo", queryInfo);
        ObjectNode everything = plan.putArray("queryRanges").addObject();
        everything.put("min", "");
        everything.put("max", "FF");
        everything.put("isMinInclusive", true);
        everything.put("isMaxInclusive", false);
        return plan;
    }

    private static void putOptional(ObjectNode object, String name, OptionalLong value) {
        if (value.isPresent()) {
            object.put(name, value.getAsLong());
        } else {
            object.putNull(name);
        }
    }

    private static void putStrings(ArrayNode array, List<String> values) {
        values.forEach(array::add);
    }
}
