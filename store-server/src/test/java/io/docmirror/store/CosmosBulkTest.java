package io.docmirror.store;

import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.models.CosmosBulkExecutionOptions;
import com.azure.cosmos.models.CosmosBulkOperationResponse;
import com.azure.cosmos.models.CosmosBulkOperations;
import com.azure.cosmos.models.CosmosContainerProperties;
import com.azure.cosmos.models.CosmosItemOperation;
import com.azure.cosmos.models.PartitionKey;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Java SDK's bulk mode against the store: operations of many partition key values, sent as batches that are not
 * atomic, each operation applied on its own with its own status.
 */
class CosmosBulkTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path directory;

    @Test
    void bulkOperationsEachSucceedOrFailOnTheirOwn() throws Exception {
        try (TestingCosmosGateway gateway = TestingCosmosGateway.start(directory)) {
            gateway.client.createDatabaseIfNotExists("shop");
            gateway.client.getDatabase("shop").createContainer(new CosmosContainerProperties("stock", "/sku"));
            CosmosContainer stock = gateway.client.getDatabase("shop").getContainer("stock");
            stock.createItem(item("taken", "A", "1"));

            List<CosmosItemOperation> operations = new ArrayList<>();
            for (int n = 0; n < 40; n++) {
                String sku = "sku" + (n % 7);
                operations.add(CosmosBulkOperations.getCreateItemOperation(item("s" + n, sku, n + ".5"),
                        new PartitionKey(sku)));
            }
            operations.add(CosmosBulkOperations.getCreateItemOperation(item("taken", "A", "2"),
                    new PartitionKey("A")));
            operations.add(CosmosBulkOperations.getDeleteItemOperation("missing", new PartitionKey("A")));

            Map<String, Integer> statuses = new TreeMap<>();
            for (CosmosBulkOperationResponse<Object> response : stock.executeBulkOperations(operations,
                    new CosmosBulkExecutionOptions())) {
                statuses.merge(response.getResponse().getStatusCode() + "", 1, Integer::sum);
            }

            assertThat(statuses).isEqualTo(Map.of("201", 40, "409", 1, "404", 1));
            assertThat(gateway.store.readItem("shop.stock", io.docmirror.store.PartitionKey.of("sku3"), "s10")
                    .json()).contains("\"count\":10.5");
            assertThat(gateway.store.readItem("shop.stock", io.docmirror.store.PartitionKey.of("A"), "taken")
                    .json()).as("the failed create changed nothing").contains("\"count\":1");
        }
    }

    private static ObjectNode item(String id, String sku, String count) {
        ObjectNode item = JSON.createObjectNode().put("id", id).put("sku", sku);
        item.put("count", new BigDecimal(count));
        return item;
    }
}
