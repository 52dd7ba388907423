package io.docmirror.store;

import com.azure.cosmos.ChangeFeedProcessor;
import com.azure.cosmos.ChangeFeedProcessorBuilder;
import com.azure.cosmos.CosmosAsyncClient;
import com.azure.cosmos.CosmosAsyncContainer;
import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.models.ChangeFeedProcessorItem;
import com.azure.cosmos.models.ChangeFeedProcessorOptions;
import com.azure.cosmos.models.CosmosContainerProperties;
import com.azure.cosmos.models.CosmosItemRequestOptions;
import com.azure.cosmos.models.PartitionKey;
import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The official Java SDK's change feed processor against the store's Cosmos DB routes, its leases in a container of
 * the store, in both modes: latest version delivers every item's change once, also those written while it runs; all
 * versions and deletes delivers each create, replace and delete.
 */
class CosmosChangeFeedProcessorTest {
    private static final Duration DEADLINE = Duration.ofMinutes(2);

    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void theProcessorDeliversEveryChangeOnce(@TempDir Path directory) throws Exception {
        try (TestingCosmosGateway gateway = TestingCosmosGateway.start(directory);
                CosmosAsyncClient asyncClient = gateway.asyncClient(gateway.primaryKey)) {
            createContainers(gateway);
            CosmosContainer orders = gateway.client.getDatabase("shop").getContainer("orders");
            for (int index = 1; index <= 20; index++) {
                write(gateway, index);
            }

            List<String> delivered = Collections.synchronizedList(new ArrayList<>());
            CosmosAsyncContainer feed = asyncClient.getDatabase("shop").getContainer("orders");
            CosmosAsyncContainer leases = asyncClient.getDatabase("shop").getContainer("leases");
            ChangeFeedProcessor processor = new ChangeFeedProcessorBuilder()
                    .hostName("host-1")
                    .feedContainer(feed)
                    .leaseContainer(leases)
                    .options(new ChangeFeedProcessorOptions().setStartFromBeginning(true)
                            .setFeedPollDelay(Duration.ofMillis(200)))
                    .handleChanges((List<JsonNode> changes) -> changes.forEach(change ->
                            delivered.add(change.get("id").asText() + "@" + change.get("total").asText())))
                    .buildChangeFeedProcessor();
            processor.start().block();
            try {
                awaitDelivered(delivered, 20);
                for (int index = 21; index <= 30; index++) {
                    write(gateway, index);
                }
                awaitDelivered(delivered, 30);
            } finally {
                processor.stop().block();
            }
            List<String> expected = new ArrayList<>();
            for (int index = 1; index <= 30; index++) {
                expected.add("o" + index + "@" + index);
            }
            assertThat(delivered).containsExactlyInAnyOrderElementsOf(expected);
            assertThat(orders.getFeedRanges()).hasSize(4);
        }
    }

    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void theProcessorInAllVersionsAndDeletesModeDeliversEveryChange(@TempDir Path directory) throws Exception {
        try (TestingCosmosGateway gateway = TestingCosmosGateway.start(directory);
                CosmosAsyncClient asyncClient = gateway.asyncClient(gateway.primaryKey)) {
            createContainers(gateway);
            List<String> delivered = Collections.synchronizedList(new ArrayList<>());
            ChangeFeedProcessor processor = new ChangeFeedProcessorBuilder()
                    .hostName("host-1")
                    .feedContainer(asyncClient.getDatabase("shop").getContainer("orders"))
                    .leaseContainer(asyncClient.getDatabase("shop").getContainer("leases"))
                    .options(new ChangeFeedProcessorOptions().setFeedPollDelay(Duration.ofMillis(200)))
                    .handleAllVersionsAndDeletesChanges((List<ChangeFeedProcessorItem> changes) -> changes.forEach(
                            change -> delivered.add(change.getChangeFeedMetaData().getOperationType() + " "
                                    + (change.getCurrent() != null ? change.getCurrent().get("id").asText()
                                            : change.toJsonNode().path("metadata").path("id").asText()))))
                    .buildChangeFeedProcessor();
            processor.start().block();
            try {
                awaitEveryLeaseStarted(gateway);
                List<String> expected = new ArrayList<>();
                for (int index = 1; index <= 10; index++) {
                    write(gateway, index);
                    expected.add("CREATE o" + index);
                }
                CosmosContainer orders = gateway.client.getDatabase("shop").getContainer("orders");
                orders.upsertItem(StoreJson.mapper().createObjectNode().put("id", "o1").put("customerId", "c1")
                        .put("total", 100));
                expected.add("REPLACE o1");
                orders.deleteItem("o2", new PartitionKey("c2"), new CosmosItemRequestOptions());
                expected.add("DELETE o2");
                awaitDelivered(delivered, expected.size());
                assertThat(delivered).containsExactlyInAnyOrderElementsOf(expected);
            } finally {
                processor.stop().block();
            }
        }
    }

    /** Waits until the processor holds a lease with a position on each of the four partition key ranges. */
    private static void awaitEveryLeaseStarted(TestingCosmosGateway gateway) throws InterruptedException {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        List<String> started = List.of();
        while (System.nanoTime() < deadline) {
            started = new ArrayList<>();
            for (int range = 0; range < 4; range++) {
                for (Item lease : gateway.store.scanItems("shop.leases", range, Optional.empty(), 100)
                        .items()) {
                    if (!lease.tree().path("ContinuationToken").asText("").isEmpty()) {
                        started.add(lease.id());
                    }
                }
            }
            if (started.size() >= 4) {
                return;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("leases with a position after " + DEADLINE + ": " + started);
    }

    /** Database {@code shop} with the feed container {@code orders} and the processor's {@code leases}. */
    private static void createContainers(TestingCosmosGateway gateway) {
        gateway.client.createDatabase("shop");
        gateway.client.getDatabase("shop").createContainer(new CosmosContainerProperties("orders", "/customerId"));
        gateway.client.getDatabase("shop").createContainer(new CosmosContainerProperties("leases", "/id"));
    }

    private static void write(TestingCosmosGateway gateway, int index) {
        gateway.store.createItem("shop.orders", ("{\"id\":\"o" + index + "\",\"customerId\":\"c" + index % 7
                + "\",\"total\":" + index + "}").getBytes(StandardCharsets.UTF_8));
    }

    private static void awaitDelivered(List<String> delivered, int count) throws InterruptedException {
        long deadline = System.nanoTime() + DEADLINE.toNanos();
        while (delivered.size() < count && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertThat(delivered).as("changes delivered within %s", DEADLINE).hasSizeGreaterThanOrEqualTo(count);
    }
}
