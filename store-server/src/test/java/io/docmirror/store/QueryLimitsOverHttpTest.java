package io.docmirror.store;

import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosException;
import com.azure.cosmos.models.CosmosContainerProperties;
import com.azure.cosmos.models.CosmosQueryRequestOptions;
import com.azure.cosmos.models.SqlParameter;
import com.azure.cosmos.models.SqlQuerySpec;
import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A query's limits seen through the official Java SDK (issue 41, defects 3 and 10): a JOIN over a large parameter made
 * millions of rows on the store's request threads for one request, with no end. Now a query that must see every row
 * is refused once a page spends the budget, naming it; a streamed one is answered in pages that each stop at the
 * budget, which the SDK follows to every result. And an ORDER BY over a value too large for a continuation header is
 * refused naming the rule, where it used to get a continuation the server itself then refused (431).
 */
class QueryLimitsOverHttpTest {
    private static final long ROWS_PER_PAGE = 20_000;

    private TestingCosmosGateway gateway;
    private CosmosContainer orders;

    @BeforeEach
    void start(@TempDir Path directory) throws Exception {
        gateway = TestingCosmosGateway.start(directory, StoreConfig.defaults()
                .withQueryPageBudget(ROWS_PER_PAGE, Duration.ofMinutes(1)));
        gateway.client.createDatabase("shop");
        gateway.client.getDatabase("shop").createContainer(new CosmosContainerProperties("orders", "/customerId"));
        orders = gateway.client.getDatabase("shop").getContainer("orders");
        for (int index = 0; index < 50; index++) {
            gateway.store.createItem("shop.orders", ("{\"id\":\"o" + index + "\",\"customerId\":\"c" + index % 5
                    + "\",\"n\":" + index + "}").getBytes(StandardCharsets.UTF_8));
        }
    }

    @AfterEach
    void stop() {
        gateway.close();
    }

    @Test
    void aQueryThatMakesTooManyRowsForOnePageIsRefusedNamingTheBudget() {
        List<Integer> parameter = IntStream.range(0, 5_500).boxed().toList();
        SqlQuerySpec join = new SqlQuerySpec("SELECT VALUE COUNT(1) FROM c JOIN a IN @p JOIN b IN @p",
                new SqlParameter("@p", parameter));
        assertThatThrownBy(() -> orders.queryItems(join, new CosmosQueryRequestOptions()
                        .setPartitionKey(new com.azure.cosmos.models.PartitionKey("c1")), JsonNode.class)
                .forEach(result -> { }))
                .isInstanceOfSatisfying(CosmosException.class, e -> {
                    assertThat(e.getStatusCode()).isEqualTo(400);
                    assertThat(e.getMessage()).contains("one page of it may make at most 20000 rows");
                });
    }

    @Test
    void anOrderByOverAValueTooLargeForAContinuationIsRefusedNamingTheRule() {
        String large = "x".repeat(40_000);
        for (int index = 0; index < 3; index++) {
            gateway.store.createItem("shop.orders", ("{\"id\":\"big" + index + "\",\"customerId\":\"c9\",\"s\":\""
                    + large + index + "\"}").getBytes(StandardCharsets.UTF_8));
        }
        SqlQuerySpec sorted = new SqlQuerySpec("SELECT c.id FROM c ORDER BY c.s");
        assertThatThrownBy(() -> orders.queryItems(sorted, new CosmosQueryRequestOptions()
                        .setPartitionKey(new com.azure.cosmos.models.PartitionKey("c9")), JsonNode.class)
                .iterableByPage(1).forEach(page -> { }))
                .isInstanceOfSatisfying(CosmosException.class, e -> {
                    assertThat(e.getStatusCode()).isEqualTo(400);
                    assertThat(e.getMessage()).contains("over the 16384 a continuation may carry");
                });
        // Short sort values page as before.
        List<String> ids = new ArrayList<>();
        orders.queryItems(new SqlQuerySpec("SELECT VALUE c.id FROM c WHERE c.customerId = 'c1' ORDER BY c.n"),
                new CosmosQueryRequestOptions(), JsonNode.class).iterableByPage(3)
                .forEach(page -> page.getResults().forEach(id -> ids.add(id.asText())));
        assertThat(ids).startsWith("o1", "o6", "o11").hasSize(10);
    }

    @Test
    void aStreamedQueryGoesOnPageByPageWithinTheBudget() {
        // Each order makes 200 x 200 rows: 40,000, twice the budget of one page.
        List<Integer> parameter = IntStream.range(0, 200).boxed().toList();
        SqlQuerySpec join = new SqlQuerySpec("SELECT VALUE c.id FROM c JOIN a IN @p JOIN b IN @p "
                + "WHERE a = 0 AND b = 0", new SqlParameter("@p", parameter));
        List<String> ids = new ArrayList<>();
        orders.queryItems(join, new CosmosQueryRequestOptions()
                        .setPartitionKey(new com.azure.cosmos.models.PartitionKey("c1")), JsonNode.class)
                .forEach(id -> ids.add(id.asText()));
        assertThat(ids).containsExactlyInAnyOrder("o1", "o6", "o11", "o16", "o21", "o26", "o31", "o36", "o41",
                "o46");
    }
}
