package io.docmirror.query;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.TextNode;
import org.junit.jupiter.api.Test;

import java.util.Comparator;
import java.util.List;
import java.util.Map;

import static io.docmirror.query.TestingOrders.ORDERS;
import static io.docmirror.query.TestingOrders.expected;
import static io.docmirror.query.TestingOrders.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The query plans a gateway answers, read as the SDKs read them: the fields of {@code queryInfo}, and rewritten
 * queries that, run on two partition key ranges (the orders split in halves) and merged as the SDK merges, give what
 * the query gives on all the orders at once.
 */
class QueryPlanTest {
    private static final List<List<JsonNode>> HALVES = List.of(ORDERS.subList(0, 10), ORDERS.subList(10, 20));

    private static JsonNode queryInfo(String query) {
        return NoSqlQuery.parse(query).plan().toJson().get("queryInfo");
    }

    private static void assertMergeMatches(String query) {
        assertMergeMatches(query, Map.of(), false);
    }

    /** @param anyOrder whether the query gives its results in no defined order (GROUP BY, DISTINCT without ORDER BY) */
    private static void assertMergeMatches(String query, Map<String, JsonNode> parameters, boolean anyOrder) {
        List<JsonNode> expected = NoSqlQuery.parse(query, parameters).execute(ORDERS);
        List<JsonNode> merged = TestingSdkMerge.run(query, parameters, HALVES);
        if (anyOrder) {
            Comparator<JsonNode> byKey = Comparator.comparing(JsonOrder::key);
            expected = expected.stream().sorted(byKey).toList();
            merged = merged.stream().sorted(byKey).toList();
        }
        assertThat(expected).as("results of %s", query).isNotEmpty();
        assertThat(text(merged)).as("%s merged from two ranges", query).isEqualTo(text(expected));
    }

    @Test
    void theWholePlanOfAnOrderByQuery() {
        assertThat(NoSqlQuery.parse("SELECT c.id FROM c WHERE c.total > 1 ORDER BY c.total DESC").plan().toJson())
                .hasToString(expected("""
                        {"partitionedQueryExecutionInfoVersion": 2,
                         "queryInfo": {"distinctType": "None", "top": null, "offset": null, "limit": null,
                           "orderBy": ["Descending"], "orderByExpressions": ["c.total"], "groupByExpressions": [],
                           "groupByAliases": [], "aggregates": [], "groupByAliasToAggregateType": {},
                           "rewrittenQuery": "SELECT c._rid, [{\\"item\\": c.total}] AS orderByItems, {\\"id\\": c.id} AS payload\\nFROM c\\nWHERE ({documentdb-formattableorderbyquery-filter}) AND (c.total > 1)\\nORDER BY c.total DESC",
                           "hasSelectValue": false, "hasNonStreamingOrderBy": false},
                         "queryRanges": [{"min": "", "max": "FF", "isMinInclusive": true, "isMaxInclusive": false}]}
                        """));
    }

    @Test
    void aQueryTheSdkNeedNotMergeHasNoRewrittenQuery() {
        JsonNode info = queryInfo("SELECT c.id FROM c WHERE c.total > 1");
        assertThat(info.get("rewrittenQuery").textValue()).isEmpty();
        assertThat(info.get("distinctType").textValue()).isEqualTo("None");
        assertMergeMatches("SELECT c.id FROM c WHERE c.total > 1");
    }

    @Test
    void orderBy() {
        JsonNode info = queryInfo("SELECT * FROM c WHERE c.customer.city = \"Lyon\" ORDER BY c.status, c.total DESC");
        assertThat(info.get("orderBy")).hasToString("[\"Ascending\",\"Descending\"]");
        assertThat(info.get("orderByExpressions")).hasToString("[\"c.status\",\"c.total\"]");
        assertThat(info.get("rewrittenQuery").textValue()).isEqualTo("SELECT c._rid, [{\"item\": c.status}, "
                + "{\"item\": c.total}] AS orderByItems, c AS payload\nFROM c\n"
                + "WHERE ({documentdb-formattableorderbyquery-filter}) AND (c.customer.city = \"Lyon\")\n"
                + "ORDER BY c.status ASC, c.total DESC");
        assertMergeMatches("SELECT * FROM c WHERE c.customer.city = \"Lyon\" ORDER BY c.status, c.total DESC");
        assertMergeMatches("SELECT VALUE c.total FROM c ORDER BY c.total");
        assertMergeMatches("SELECT VALUE i.sku FROM c JOIN i IN c.items WHERE i.qty > 2 ORDER BY i.qty DESC");
    }

    @Test
    void theResumeFilterTheSdkWritesIntoAnOrderByQueryRuns() {
        // Resuming, the Java SDK writes the last sort value as Java prints it: a double in E notation, a string quoted.
        String rewritten = queryInfo("SELECT VALUE c.id FROM c WHERE IS_NUMBER(c.total) ORDER BY c.total")
                .get("rewrittenQuery").textValue();
        NoSqlQuery resumed = NoSqlQuery.parse(rewritten.replace(QueryPlan.ORDER_BY_FILTER_PLACEHOLDER,
                "c.total >= 9.007199254740992E15"));
        assertThat(text(resumed.execute(ORDERS).stream().map(result -> result.get("payload")).toList()))
                .isEqualTo(expected("[\"o7\", \"o3\", \"o4\"]"));
    }

    @Test
    void topAndOffsetLimit() {
        JsonNode info = queryInfo("SELECT VALUE c.id FROM c ORDER BY c.total OFFSET 3 LIMIT 4");
        assertThat(info.get("offset").intValue()).isEqualTo(3);
        assertThat(info.get("limit").intValue()).isEqualTo(4);
        assertThat(info.get("hasSelectValue").booleanValue()).isTrue();
        // Each range gives its first offset + limit results; the SDK skips and takes over the merged stream.
        assertThat(info.get("rewrittenQuery").textValue()).endsWith("\nORDER BY c.total ASC\nOFFSET 0 LIMIT 7");
        assertMergeMatches("SELECT VALUE c.id FROM c ORDER BY c.total OFFSET 3 LIMIT 4");
        assertMergeMatches("SELECT VALUE c.id FROM c WHERE c.customer.city = \"Lyon\" OFFSET 1 LIMIT 2");

        JsonNode top = queryInfo("SELECT TOP 5 c.id FROM c ORDER BY c.id DESC");
        assertThat(top.get("top").intValue()).isEqualTo(5);
        assertThat(top.get("rewrittenQuery").textValue()).startsWith("SELECT TOP 5 c._rid, ");
        assertMergeMatches("SELECT TOP 5 c.id FROM c ORDER BY c.id DESC");
        assertMergeMatches("SELECT TOP @n VALUE c.total FROM c WHERE IS_NUMBER(c.total) ORDER BY c.total DESC",
                Map.of("@n", IntNode.valueOf(4)), false);
    }

    @Test
    void distinct() {
        assertThat(queryInfo("SELECT DISTINCT VALUE c.status FROM c").get("distinctType").textValue())
                .isEqualTo("Unordered");
        JsonNode ordered = queryInfo("SELECT DISTINCT VALUE c.status FROM c ORDER BY c.status");
        assertThat(ordered.get("distinctType").textValue()).isEqualTo("Ordered");
        // The SDK needs each row's _rid to continue; it removes the duplicates of the merged, sorted stream itself.
        assertThat(ordered.get("rewrittenQuery").textValue()).startsWith("SELECT c._rid, [{\"item\": c.status}]");
        assertMergeMatches("SELECT DISTINCT VALUE c.customer.city FROM c", Map.of(), true);
        assertMergeMatches("SELECT DISTINCT VALUE c.status FROM c ORDER BY c.status");
    }

    @Test
    void valueAggregates() {
        JsonNode count = queryInfo("SELECT VALUE COUNT(1) FROM c");
        assertThat(count.get("aggregates")).hasToString("[\"Count\"]");
        assertThat(count.get("hasSelectValue").booleanValue()).isTrue();
        assertThat(count.get("rewrittenQuery").textValue()).isEqualTo("SELECT VALUE [{\"item\": COUNT(1)}]\nFROM c");
        assertThat(queryInfo("SELECT VALUE AVG(c.total) FROM c").get("rewrittenQuery").textValue())
                .isEqualTo("SELECT VALUE [{\"item\": {\"sum\": SUM(c.total), \"count\": COUNT(c.total)}}]\nFROM c");
        assertMergeMatches("SELECT VALUE COUNT(1) FROM c");
        assertMergeMatches("SELECT VALUE SUM(c.total) FROM c WHERE IS_NUMBER(c.total) AND c.total < 1e300");
        assertMergeMatches("SELECT VALUE AVG(c.total) FROM c WHERE c.customer.city = \"Lyon\"");
        assertMergeMatches("SELECT VALUE MIN(c.total) FROM c WHERE IS_NUMBER(c.total)");
        assertMergeMatches("SELECT VALUE MAX(c.customer.name) FROM c");
    }

    @Test
    void aggregatesInASelectList() {
        JsonNode info = queryInfo("SELECT COUNT(1) AS n, MAX(c.total) AS hi FROM c");
        assertThat(info.get("aggregates")).isEmpty();
        assertThat(info.get("groupByAliases")).hasToString("[\"n\",\"hi\"]");
        assertThat(info.get("groupByAliasToAggregateType")).hasToString("{\"n\":\"Count\",\"hi\":\"Max\"}");
        assertThat(info.get("rewrittenQuery").textValue()).isEqualTo("SELECT {\"n\": {\"item\": COUNT(1)}, "
                + "\"hi\": {\"item\": {\"max\": MAX(c.total), \"count\": COUNT(c.total)}}} AS payload\nFROM c");
        assertMergeMatches("SELECT COUNT(1) AS n, SUM(c.total) AS s, AVG(c.total) AS a, MIN(c.total) AS lo, "
                + "MAX(c.total) AS hi FROM c WHERE c.customer.city = @city", Map.of("@city", TextNode.valueOf("Lyon")),
                false);
    }

    @Test
    void groupBy() {
        String query = "SELECT c.customer.city AS city, COUNT(1) AS n, SUM(c.total) AS s FROM c "
                + "WHERE IS_NUMBER(c.total) AND c.total < 1e300 GROUP BY c.customer.city";
        JsonNode info = queryInfo(query);
        assertThat(info.get("groupByExpressions")).hasToString("[\"c.customer.city\"]");
        assertThat(info.get("groupByAliases")).hasToString("[\"city\",\"n\",\"s\"]");
        assertThat(info.get("groupByAliasToAggregateType")).hasToString("{\"city\":null,\"n\":\"Count\",\"s\":\"Sum\"}");
        assertThat(info.get("rewrittenQuery").textValue()).isEqualTo("SELECT [{\"item\": c.customer.city}] AS "
                + "groupByItems, {\"city\": c.customer.city, \"n\": {\"item\": COUNT(1)}, \"s\": {\"item\": SUM(c.total)}}"
                + " AS payload\nFROM c\nWHERE IS_NUMBER(c.total) AND c.total < 1e300\nGROUP BY c.customer.city");
        assertMergeMatches(query, Map.of(), true);
        // Only numbers: a range whose totals are not all numbers has no partial sum, and the SDK leaves it out of
        // the average where one range holding every document would make the average undefined.
        assertMergeMatches("SELECT c.customer.city AS city, c.status AS status, AVG(c.total) AS a FROM c "
                + "WHERE IS_NUMBER(c.total) GROUP BY c.customer.city, c.status", Map.of(), true);
    }

    @Test
    void whatTheSdkCannotMergeIsRefused() {
        assertThatThrownBy(() -> NoSqlQuery.parse("SELECT VALUE COUNT(1) + 1 FROM c").plan())
                .isInstanceOfSatisfying(QueryException.class,
                        error -> assertThat(error.code()).isEqualTo(QueryErrorCode.NOT_SUPPORTED))
                .hasMessage("Cannot plan the query across partitions: SELECT VALUE COUNT(1) + 1 cannot be merged from "
                        + "the partition key ranges' results; query one partition key value instead");
        assertThatThrownBy(() -> NoSqlQuery.parse("SELECT VALUE c.status FROM c GROUP BY c.status").plan())
                .isInstanceOf(QueryException.class)
                .hasMessageStartingWith("Cannot plan the query across partitions: SELECT VALUE c.status with GROUP BY");
    }
}
