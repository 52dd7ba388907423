package io.docmirror.store;

import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosException;
import com.azure.cosmos.models.CosmosContainerProperties;
import com.azure.cosmos.models.CosmosQueryRequestOptions;
import com.azure.cosmos.models.FeedResponse;
import com.azure.cosmos.models.PartitionKey;
import com.azure.cosmos.models.SqlParameter;
import com.azure.cosmos.models.SqlQuerySpec;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Queries through the official Cosmos DB Java SDK in gateway mode against the store's Cosmos DB routes: every
 * supported shape, within one partition key value and across the container's partition key ranges (the store's
 * four log partitions), read two results a page so that every query goes on from continuations.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CosmosQueryTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int PAGE = 2;
    private static final Pattern RANGE_IN_DIAGNOSTICS = Pattern.compile("\"partitionKeyRangeId\":\"([0-9]+)\"");

    private TestingCosmosGateway gateway;
    private EmbeddedStore store;
    private CosmosClient client;
    private CosmosContainer orders;

    /**
     * Twelve orders of four customers, {@code o1} to {@code o12}: customer {@code c<i % 4>}, total {@code 10 i},
     * status {@code paid} for every third, tags, lines, and on {@code o1} numbers a double would round.
     */
    @BeforeAll
    void start(@TempDir Path directory) throws Exception {
        gateway = TestingCosmosGateway.start(directory);
        store = gateway.store;
        client = gateway.client;
        client.createDatabase("shop");
        client.getDatabase("shop").createContainer(new CosmosContainerProperties("orders", "/customerId"));
        orders = client.getDatabase("shop").getContainer("orders");
        assertThat(orders.getFeedRanges()).hasSize(4);
        for (int index = 1; index <= 12; index++) {
            String tags = index % 2 == 0 ? "[\"gift\",\"red\"]" : "[\"blue\"]";
            String extra = index == 1 ? ",\"big\":9007199254740993,\"fraction\":0.1"
                    : index == 5 ? ",\"note\":\"fragile\"" : "";
            String document = "{\"id\":\"o" + index + "\",\"customerId\":\"c" + index % 4 + "\",\"total\":" + index * 10
                    + ",\"status\":\"" + (index % 3 == 0 ? "paid" : "new") + "\",\"tags\":" + tags
                    + ",\"lines\":[{\"sku\":\"s" + index + "\",\"qty\":" + (index % 3 + 1)
                    + "},{\"sku\":\"x\",\"qty\":1}]" + extra + "}";
            store.createItem("shop.orders", document.getBytes(StandardCharsets.UTF_8));
        }
    }

    @AfterAll
    void stop() {
        if (gateway != null) {
            gateway.close();
        }
    }

    @Test
    void selectStarGivesEveryDocument() {
        List<JsonNode> all = queryAcross("SELECT * FROM c");
        assertThat(ids(all)).containsExactlyInAnyOrder("o1", "o2", "o3", "o4", "o5", "o6", "o7", "o8", "o9", "o10",
                "o11", "o12");
        assertThat(all.get(0).has("_rid")).isTrue();
        assertThat(ids(queryIn("c1", "SELECT * FROM c"))).containsExactlyInAnyOrder("o1", "o5", "o9");
    }

    @Test
    void projectionsAndAliasesNameTheirValues() {
        String query = "SELECT c.id, c.total AS amount FROM c WHERE c.customerId = 'c1'";
        List<String> expected = List.of("{\"id\":\"o1\",\"amount\":10}", "{\"id\":\"o5\",\"amount\":50}",
                "{\"id\":\"o9\",\"amount\":90}");
        assertThat(texts(queryAcross(query))).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(texts(queryIn("c1", query))).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(texts(queryIn("c2", query))).isEmpty();
    }

    @Test
    void joinGivesOneRowPerElement() {
        String query = "SELECT c.id, l.sku FROM c JOIN l IN c.lines WHERE l.qty = 3";
        assertThat(texts(queryAcross(query))).containsExactlyInAnyOrder("{\"id\":\"o2\",\"sku\":\"s2\"}",
                "{\"id\":\"o5\",\"sku\":\"s5\"}", "{\"id\":\"o8\",\"sku\":\"s8\"}",
                "{\"id\":\"o11\",\"sku\":\"s11\"}");
        assertThat(texts(queryIn("c1", query))).containsExactly("{\"id\":\"o5\",\"sku\":\"s5\"}");
        assertThat(queryAcross("SELECT VALUE l.sku FROM c JOIN l IN c.lines")).hasSize(24);
    }

    @Test
    void filtersMatchAsCosmosDbDoes() {
        Map<String, List<String>> filters = new LinkedHashMap<>();
        filters.put("c.total >= 30 AND c.total < 60", List.of("o3", "o4", "o5"));
        filters.put("c.status = 'paid' OR c.total = 10", List.of("o1", "o3", "o6", "o9", "o12"));
        filters.put("NOT (c.total > 20)", List.of("o1", "o2"));
        filters.put("c.customerId IN ('c1', 'c2') AND c.total <= 50", List.of("o1", "o2", "o5"));
        filters.put("c.customerId NOT IN ('c1', 'c2', 'c3')", List.of("o4", "o8", "o12"));
        filters.put("c.total BETWEEN 40 AND 60", List.of("o4", "o5", "o6"));
        filters.put("c.id LIKE 'o1_'", List.of("o10", "o11", "o12"));
        filters.put("IS_DEFINED(c.note)", List.of("o5"));
        filters.put("IS_NUMBER(c.big) AND IS_STRING(c.id) AND IS_ARRAY(c.tags) AND NOT IS_NULL(c.id)", List.of("o1"));
        filters.put("ARRAY_CONTAINS(c.tags, 'red') AND c.total < 50", List.of("o2", "o4"));
        filters.put("ARRAY_CONTAINS(c.lines, {\"sku\": \"s7\"}, true)", List.of("o7"));
        filters.put("STARTSWITH(c.id, 'o1') AND CONTAINS(c.status, 'ai')", List.of("o12"));
        filters.put("c.total * 2 + 5 = 45", List.of("o2"));
        filters.put("c.total % 40 = 0", List.of("o4", "o8", "o12"));
        filters.put("c.big > 9007199254740992", List.of("o1"));
        filters.put("c.fraction = 0.1", List.of("o1"));
        filters.forEach((filter, expected) -> {
            String query = "SELECT VALUE c.id FROM c WHERE " + filter;
            assertThat(queryAcross(query)).as(query).extracting(JsonNode::asText)
                    .containsExactlyInAnyOrderElementsOf(expected);
            for (String customer : List.of("c0", "c1", "c2", "c3")) {
                assertThat(queryIn(customer, query)).as("%s in %s", query, customer).extracting(JsonNode::asText)
                        .containsExactlyInAnyOrderElementsOf(expected.stream().filter(id -> customerOf(id)
                                .equals(customer)).toList());
            }
        });
    }

    private static String customerOf(String id) {
        return "c" + Integer.parseInt(id.substring(1)) % 4;
    }

    @Test
    void aFilterOnThePartitionKeyIsSentToOneRangeOnly() {
        String query = "SELECT VALUE c.id FROM c WHERE c.customerId = 'c1' AND c.total > 20";
        assertThat(rangesAsked(new SqlQuerySpec(query))).hasSize(1);
        assertThat(queryAcross(query)).extracting(JsonNode::asText).containsExactlyInAnyOrder("o5", "o9");
        SqlQuerySpec parameter = new SqlQuerySpec("SELECT VALUE c.id FROM c WHERE c.customerId = @customer",
                new SqlParameter("@customer", "c2"));
        assertThat(rangesAsked(parameter)).hasSize(1);
        assertThat(query(parameter, new CosmosQueryRequestOptions())).extracting(JsonNode::asText)
                .containsExactlyInAnyOrder("o2", "o6", "o10");
        assertThat(rangesAsked(new SqlQuerySpec("SELECT VALUE c.id FROM c WHERE c.total > 20"))).hasSize(4);
    }

    /** The partition key ranges the SDK sent a query to, as its diagnostics name them. */
    private Set<String> rangesAsked(SqlQuerySpec query) {
        Set<String> ranges = new TreeSet<>();
        for (FeedResponse<JsonNode> page : orders.queryItems(query, new CosmosQueryRequestOptions(), JsonNode.class)
                .iterableByPage(PAGE)) {
            Matcher range = RANGE_IN_DIAGNOSTICS.matcher(page.getCosmosDiagnostics().toString());
            while (range.find()) {
                ranges.add(range.group(1));
            }
        }
        return ranges;
    }

    @Test
    void parametersTakeTheirValuesFromTheQuerySpec() {
        SqlQuerySpec query = new SqlQuerySpec("SELECT VALUE c.id FROM c WHERE c.total > @min AND c.status = @status",
                new SqlParameter("@min", 50), new SqlParameter("@status", "paid"));
        assertThat(query(query, new CosmosQueryRequestOptions())).extracting(JsonNode::asText)
                .containsExactlyInAnyOrder("o6", "o9", "o12");
        assertThat(query(query, new CosmosQueryRequestOptions().setPartitionKey(new PartitionKey("c1"))))
                .extracting(JsonNode::asText).containsExactly("o9");
        SqlQuerySpec list = new SqlQuerySpec("SELECT VALUE c.id FROM c WHERE ARRAY_CONTAINS(@ids, c.id)",
                new SqlParameter("@ids", List.of("o2", "o7")));
        assertThat(query(list, new CosmosQueryRequestOptions())).extracting(JsonNode::asText)
                .containsExactlyInAnyOrder("o2", "o7");
    }

    @Test
    void orderByMergesTheRangesInOrder() {
        assertThat(texts(queryAcross("SELECT c.id, c.total FROM c WHERE c.total > 80 ORDER BY c.total DESC")))
                .containsExactly("{\"id\":\"o12\",\"total\":120}", "{\"id\":\"o11\",\"total\":110}",
                        "{\"id\":\"o10\",\"total\":100}", "{\"id\":\"o9\",\"total\":90}");
        assertThat(queryAcross("SELECT VALUE c.id FROM c ORDER BY c.total")).extracting(JsonNode::asText)
                .containsExactly("o1", "o2", "o3", "o4", "o5", "o6", "o7", "o8", "o9", "o10", "o11", "o12");
        assertThat(queryIn("c2", "SELECT VALUE c.id FROM c ORDER BY c.total DESC")).extracting(JsonNode::asText)
                .containsExactly("o10", "o6", "o2");
    }

    @Test
    void orderByTwoPathsSortsOnBoth() {
        String query = "SELECT VALUE c.id FROM c ORDER BY c.status ASC, c.total DESC";
        assertThat(queryAcross(query)).extracting(JsonNode::asText).containsExactly("o11", "o10", "o8", "o7", "o5",
                "o4", "o2", "o1", "o12", "o9", "o6", "o3");
        assertThat(queryIn("c1", query)).extracting(JsonNode::asText).containsExactly("o5", "o1", "o9");
    }

    @Test
    void topAndOffsetLimitCutTheMergedResults() {
        assertThat(queryAcross("SELECT TOP 3 VALUE c.id FROM c ORDER BY c.total")).extracting(JsonNode::asText)
                .containsExactly("o1", "o2", "o3");
        assertThat(ids(queryAcross("SELECT TOP 5 * FROM c"))).hasSize(5).doesNotHaveDuplicates();
        assertThat(queryAcross("SELECT VALUE c.id FROM c ORDER BY c.total OFFSET 3 LIMIT 4"))
                .extracting(JsonNode::asText).containsExactly("o4", "o5", "o6", "o7");
        assertThat(queryIn("c0", "SELECT VALUE c.id FROM c ORDER BY c.total OFFSET 1 LIMIT 5"))
                .extracting(JsonNode::asText).containsExactly("o8", "o12");
        assertThat(queryAcross("SELECT VALUE c.id FROM c OFFSET 10 LIMIT 5")).hasSize(2);
    }

    @Test
    void distinctRemovesDuplicatesAcrossRanges() {
        assertThat(queryAcross("SELECT DISTINCT VALUE c.status FROM c")).extracting(JsonNode::asText)
                .containsExactlyInAnyOrder("new", "paid");
        assertThat(texts(queryAcross("SELECT DISTINCT c.customerId FROM c"))).containsExactlyInAnyOrder(
                "{\"customerId\":\"c0\"}", "{\"customerId\":\"c1\"}", "{\"customerId\":\"c2\"}",
                "{\"customerId\":\"c3\"}");
        assertThat(queryAcross("SELECT DISTINCT VALUE c.customerId FROM c ORDER BY c.customerId"))
                .extracting(JsonNode::asText).containsExactly("c0", "c1", "c2", "c3");
        assertThat(queryIn("c1", "SELECT DISTINCT VALUE c.status FROM c")).extracting(JsonNode::asText)
                .containsExactlyInAnyOrder("new", "paid");
    }

    @Test
    void aggregatesFoldEveryRange() {
        Map<String, String> across = Map.of("COUNT(1)", "12", "SUM(c.total)", "780", "MIN(c.total)", "10",
                "MAX(c.total)", "120", "AVG(c.total)", "65");
        Map<String, String> inC1 = Map.of("COUNT(1)", "3", "SUM(c.total)", "150", "MIN(c.total)", "10",
                "MAX(c.total)", "90", "AVG(c.total)", "50");
        across.forEach((aggregate, expected) -> assertThat(texts(queryAcross("SELECT VALUE " + aggregate
                + " FROM c"))).as(aggregate).singleElement().satisfies(value -> assertNumber(value, expected)));
        inC1.forEach((aggregate, expected) -> assertThat(texts(queryIn("c1", "SELECT VALUE " + aggregate
                + " FROM c"))).as(aggregate).singleElement().satisfies(value -> assertNumber(value, expected)));
        JsonNode both = queryAcross("SELECT COUNT(1) AS n, SUM(c.total) AS s FROM c WHERE c.total > 100").get(0);
        assertThat(both.get("n").asInt()).isEqualTo(2);
        assertThat(both.get("s").asInt()).isEqualTo(230);
        assertThat(texts(queryAcross("SELECT VALUE COUNT(1) FROM c WHERE c.total > 1000"))).containsExactly("0");
    }

    /** A number as the SDK read it: the SDK folds partial aggregates in doubles, so 65 may come back as 65.0. */
    private static void assertNumber(String actual, String expected) {
        assertThat(new BigDecimal(actual)).isEqualByComparingTo(expected);
    }

    @Test
    void groupByGivesOneResultPerGroup() {
        String query = "SELECT c.status, COUNT(1) AS n, SUM(c.total) AS s FROM c GROUP BY c.status";
        assertThat(queryAcross(query)).extracting(node -> node.get("status").asText() + " " + node.get("n").asInt()
                + " " + node.get("s").asInt()).containsExactlyInAnyOrder("new 8 480", "paid 4 300");
        assertThat(queryIn("c1", query)).extracting(node -> node.get("status").asText() + " " + node.get("n").asInt()
                + " " + node.get("s").asInt()).containsExactlyInAnyOrder("new 2 60", "paid 1 90");
    }

    @Test
    void numbersComeBackAsStored() {
        String query = "SELECT c.big, c.fraction FROM c WHERE c.id = 'o1'";
        assertThat(texts(queryAcross(query))).containsExactly("{\"big\":9007199254740993,\"fraction\":0.1}");
        assertThat(texts(queryIn("c1", query))).containsExactly("{\"big\":9007199254740993,\"fraction\":0.1}");
        assertThat(texts(queryAcross("SELECT VALUE c.big FROM c WHERE IS_DEFINED(c.big) ORDER BY c.total")))
                .containsExactly("9007199254740993");
        assertThat(texts(queryAcross("SELECT VALUE MAX(c.big) FROM c"))).containsExactly("9007199254740993");
        assertThat(queryAcross("SELECT * FROM c WHERE c.id = 'o1'").get(0).get("big").toString())
                .isEqualTo("9007199254740993");
    }

    @Test
    void readAllItemsIsAQueryOfOnePartition() {
        assertThat(orders.readAllItems(new PartitionKey("c2"), JsonNode.class).stream().map(node -> node.get("id")
                .asText()).toList()).containsExactlyInAnyOrder("o2", "o6", "o10");
    }

    @Test
    void aQueryOutsideTheSubsetIsRefusedNamingTheConstruct() {
        for (CosmosQueryRequestOptions options : List.of(new CosmosQueryRequestOptions(),
                new CosmosQueryRequestOptions().setPartitionKey(new PartitionKey("c1")))) {
            assertThatThrownBy(() -> query(new SqlQuerySpec("SELECT ST_DISTANCE(c.a, c.b) AS d FROM c"), options))
                    .isInstanceOfSatisfying(CosmosException.class, e -> {
                        assertThat(e.getStatusCode()).isEqualTo(400);
                        assertThat(e.getMessage()).contains("ST_DISTANCE is not supported at line 1, column 8");
                    });
            assertThatThrownBy(() -> query(new SqlQuerySpec("SELECT * FROM c WHERE"), options))
                    .isInstanceOfSatisfying(CosmosException.class, e -> {
                        assertThat(e.getStatusCode()).isEqualTo(400);
                        assertThat(e.getMessage()).contains("at line 1, column 22");
                    });
        }
    }

    /**
     * Not OFFSET LIMIT: the Java SDK (4.79) hands out, for an OFFSET LIMIT query whose ranges have no more results
     * but whose LIMIT is not reached, a continuation that starts the query over. Not DISTINCT with ORDER BY either: when
     * a resumed page holds only duplicates, the SDK's next continuation forgets the last value, which comes again.
     */
    @Test
    void aQueryGoesOnFromTheContinuationOfEachPage() {
        List<String> queries = List.of("SELECT VALUE c.id FROM c", "SELECT VALUE c.id FROM c WHERE c.total > 30",
                "SELECT VALUE c.id FROM c ORDER BY c.total DESC", "SELECT VALUE c.id FROM c ORDER BY c.status, c.id",
                "SELECT c.id, l.sku FROM c JOIN l IN c.lines ORDER BY c.total", "SELECT TOP 7 VALUE c.id FROM c");
        for (String query : queries) {
            for (CosmosQueryRequestOptions options : List.of(new CosmosQueryRequestOptions(),
                    new CosmosQueryRequestOptions().setPartitionKey(new PartitionKey("c2")))) {
                List<JsonNode> whole = query(new SqlQuerySpec(query), options);
                assertThat(resumedAtEachPage(new SqlQuerySpec(query), options)).as(query).isEqualTo(whole);
            }
        }
    }

    /** Every result of a query, each page read by a new query that goes on from the previous page's continuation. */
    private List<JsonNode> resumedAtEachPage(SqlQuerySpec query, CosmosQueryRequestOptions options) {
        List<JsonNode> results = new ArrayList<>();
        String continuation = null;
        int pages = 0;
        do {
            FeedResponse<JsonNode> page = orders.queryItems(query, options, JsonNode.class)
                    .iterableByPage(continuation, PAGE).iterator().next();
            results.addAll(page.getResults());
            continuation = page.getContinuationToken();
            assertThat(++pages).as("pages of %s", query.getQueryText()).isLessThan(50);
        } while (continuation != null);
        return results;
    }

    private static List<String> texts(List<JsonNode> results) {
        return results.stream().map(JsonNode::toString).toList();
    }

    private static List<String> ids(List<JsonNode> documents) {
        return documents.stream().map(document -> document.get("id").asText()).toList();
    }

    /** Every result of a query across partitions, read {@value #PAGE} a page. */
    private List<JsonNode> queryAcross(String query) {
        return query(new SqlQuerySpec(query), new CosmosQueryRequestOptions());
    }

    /** Every result of a query within one customer's orders, read {@value #PAGE} a page. */
    private List<JsonNode> queryIn(String customer, String query) {
        return query(new SqlQuerySpec(query), new CosmosQueryRequestOptions().setPartitionKey(new PartitionKey(customer)));
    }

    private List<JsonNode> query(SqlQuerySpec query, CosmosQueryRequestOptions options) {
        List<JsonNode> results = new ArrayList<>();
        for (FeedResponse<JsonNode> page : orders.queryItems(query, options, JsonNode.class)
                .iterableByPage(PAGE)) {
            assertThat(page.getResults().size()).as("a page of %s", query.getQueryText()).isLessThanOrEqualTo(PAGE);
            results.addAll(page.getResults());
        }
        return results;
    }
}
