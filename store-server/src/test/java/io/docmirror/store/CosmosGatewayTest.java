package io.docmirror.store;

import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosClientBuilder;
import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosDatabase;
import com.azure.cosmos.CosmosException;
import com.azure.cosmos.models.CosmosBatch;
import com.azure.cosmos.models.CosmosBatchResponse;
import com.azure.cosmos.models.CosmosChangeFeedRequestOptions;
import com.azure.cosmos.models.CosmosContainerProperties;
import com.azure.cosmos.models.CosmosContainerRequestOptions;
import com.azure.cosmos.models.CosmosContainerResponse;
import com.azure.cosmos.models.CosmosItemRequestOptions;
import com.azure.cosmos.models.CosmosItemResponse;
import com.azure.cosmos.models.CosmosPatchOperations;
import com.azure.cosmos.models.CosmosQueryRequestOptions;
import com.azure.cosmos.models.FeedRange;
import com.azure.cosmos.models.FeedResponse;
import com.azure.cosmos.models.PartitionKey;
import com.azure.cosmos.models.PartitionKeyDefinition;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The official Cosmos DB Java SDK, unchanged and in gateway mode, against the store's Cosmos DB routes over TLS:
 * databases and containers, item CRUD, conditional writes, patch, transactional batches, partition keys of any
 * characters, and the keys (a wrong key 401, the read-only key 403 on writes). What the SDK wrote is checked in the
 * store itself too.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CosmosGatewayTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private TestingCosmosGateway gateway;
    private EmbeddedStore store;
    private CosmosClient client;

    @BeforeAll
    void start(@TempDir Path directory) throws Exception {
        gateway = TestingCosmosGateway.start(directory);
        store = gateway.store;
        client = gateway.client;
    }

    @AfterAll
    void stop() {
        if (gateway != null) {
            gateway.close();
        }
    }

    @Test
    void databasesAndContainersAreTheStoresContainers() {
        String name = "shop" + UUID.randomUUID().toString().substring(0, 8);
        client.createDatabaseIfNotExists(name);
        CosmosDatabase database = client.getDatabase(name);
        CosmosContainerProperties definition = new CosmosContainerProperties("orders", "/customerId");
        definition.setDefaultTimeToLiveInSeconds(3600);
        definition.setAnalyticalStoreTimeToLiveInSeconds(-1);
        CosmosContainerResponse created = database.createContainer(definition);

        assertThat(created.getProperties().getPartitionKeyDefinition().getPaths()).containsExactly("/customerId");
        assertThat(created.getProperties().getDefaultTimeToLiveInSeconds()).isEqualTo(3600);
        assertThat(created.getProperties().getAnalyticalStoreTimeToLiveInSeconds()).isEqualTo(-1);
        assertThat(store.readContainer(name + ".orders").partitionKeyPath()).isEqualTo("/customerId");
        assertThat(store.readContainer(name + ".orders").isMirrored()).isTrue();
        assertThat(database.readAllContainers().stream().map(CosmosContainerProperties::getId).toList())
                .containsExactly("orders");
        assertThat(client.readAllDatabases().stream().map(properties -> properties.getId()).toList()).contains(name);
        assertThatThrownBy(() -> database.createContainer(new CosmosContainerProperties("orders", "/customerId")))
                .isInstanceOfSatisfying(CosmosException.class, e -> assertThat(e.getStatusCode()).isEqualTo(409));
        assertThat(database.createContainerIfNotExists(new CosmosContainerProperties("orders", "/customerId"))
                .getProperties().getDefaultTimeToLiveInSeconds()).isEqualTo(3600);
        assertThat(database.createContainerIfNotExists(new CosmosContainerProperties("lines", "/orderId"))
                .getStatusCode()).isEqualTo(201);
        assertThat(database.readAllContainers().stream().map(CosmosContainerProperties::getId).toList())
                .containsExactlyInAnyOrder("orders", "lines");

        // A test suite's usual pattern: delete the database, create it again with the same containers, start empty.
        database.getContainer("orders").createItem(order("o1", "c1", 10));
        database.delete();
        assertThat(store.listContainers()).noneMatch(container -> container.id().startsWith(name + "."));
        client.createDatabase(name);
        client.getDatabase(name).createContainer(new CosmosContainerProperties("orders", "/customerId"));
        assertThatThrownBy(() -> client.getDatabase(name).getContainer("orders")
                .readItem("o1", new PartitionKey("c1"), JsonNode.class))
                .isInstanceOfSatisfying(CosmosException.class, e -> assertThat(e.getStatusCode()).isEqualTo(404));
    }

    /** The official SDK with the read-only key runs a query (a POST, and a query-plan POST first), but writes nothing. */
    @Test
    void theReadOnlyKeyRunsQueriesButCannotWrite() {
        String database = freshDatabase();
        orders(database).createItem(order("o1", "c1", 10));
        orders(database).createItem(order("o2", "c2", 20));
        try (CosmosClient reader = gateway.client(gateway.readOnlyKey)) {
            CosmosContainer readOnly = reader.getDatabase(database).getContainer("orders");

            List<String> ids = new ArrayList<>();
            readOnly.queryItems("SELECT VALUE c.id FROM c WHERE c.total > 5", new CosmosQueryRequestOptions(),
                    String.class).forEach(ids::add);

            assertThat(ids).containsExactlyInAnyOrder("o1", "o2");
            assertThatThrownBy(() -> readOnly.createItem(order("o3", "c1", 30)))
                    .isInstanceOfSatisfying(CosmosException.class, e -> assertThat(e.getStatusCode()).isEqualTo(403));
        }
        assertThat(orders(database).queryItems("SELECT VALUE COUNT(1) FROM c", new CosmosQueryRequestOptions(),
                Integer.class).stream().toList()).containsExactly(2);
    }

    /**
     * Microsoft's getting-started sample builds its client in direct mode, the Java SDK's default: the store has no
     * replicas to connect to, and says so, naming gateway mode, where the application used to see a bare 404.
     */
    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void aClientInDirectModeIsToldToUseGatewayMode() {
        String database = freshDatabase();
        orders(database);
        try (CosmosClient direct = new CosmosClientBuilder().endpoint(gateway.server.baseUri())
                .key(gateway.primaryKey).buildClient()) {
            CosmosContainer orders = direct.getDatabase(database).getContainer("orders");
            assertThatThrownBy(() -> orders.createItem(order("o1", "c1", 10)))
                    .isInstanceOfSatisfying(CosmosException.class, e -> {
                        System.out.println("a direct-mode client saw: " + e.getStatusCode() + " " + e.getMessage());
                        assertThat(e.getStatusCode()).isEqualTo(400);
                        assertThat(e.getMessage()).contains("gateway mode only", "gatewayMode()");
                    });
        }
        assertThat(store.readPartition(database + ".orders", io.docmirror.store.PartitionKey.of("c1"))).isEmpty();
    }

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void aContainersReplaceChangesItsTtlAndItsOldItemsExpireByIt() throws InterruptedException {
        String database = freshDatabase();
        CosmosContainer orders = orders(database);
        orders.createItem(order("o1", "c1", 10));
        CosmosContainerProperties read = orders.read().getProperties();
        assertThat(read.getDefaultTimeToLiveInSeconds()).isNull();

        read.setDefaultTimeToLiveInSeconds(1);
        CosmosContainerResponse replaced = orders.replace(read,
                new CosmosContainerRequestOptions().setIfMatchETag(read.getETag()));

        assertThat(replaced.getStatusCode()).isEqualTo(200);
        assertThat(replaced.getProperties().getDefaultTimeToLiveInSeconds()).isEqualTo(1);
        assertThat(replaced.getProperties().getETag()).isNotEqualTo(read.getETag());
        assertThat(orders.read().getProperties().getDefaultTimeToLiveInSeconds()).isEqualTo(1);
        assertThat(store.readContainer(database + ".orders").defaultTtl()).isEqualTo(1);
        // o1, written before TTL was on, expires a second after its write, and the reaper removes it.
        StoreTesting.await("o1 is removed with a TTL delete", Duration.ofSeconds(60),
                () -> StoreTesting.changeLog(store, database + ".orders").stream()
                        .map(event -> event.operation() + (event.ttlExpired() ? " (TTL)" : "")).toList(),
                operations -> operations.contains("DELETE (TTL)"));
        assertThatThrownBy(() -> orders.readItem("o1", new PartitionKey("c1"), ObjectNode.class))
                .isInstanceOfSatisfying(CosmosException.class, e -> assertThat(e.getStatusCode()).isEqualTo(404));

        // Turned off again: an item outlives the TTL it would have had.
        CosmosContainerProperties off = orders.read().getProperties();
        off.setDefaultTimeToLiveInSeconds(null);
        assertThat(orders.replace(off).getProperties().getDefaultTimeToLiveInSeconds()).isNull();
        orders.createItem(order("o2", "c1", 20));
        assertThat(store.readContainer(database + ".orders").defaultTtl()).isNull();
    }

    @Test
    void aReplaceThatChangesThePartitionKeyOrCarriesAStaleEtagIsRefused() {
        String database = freshDatabase();
        CosmosContainer orders = orders(database);
        // The SDK replaces a container through the self link of the properties it read.
        CosmosContainerProperties otherKey = orders.read().getProperties();
        otherKey.setPartitionKeyDefinition(new PartitionKeyDefinition().setPaths(List.of("/region")));
        otherKey.setDefaultTimeToLiveInSeconds(60);

        assertThatThrownBy(() -> orders.replace(otherKey))
                .isInstanceOfSatisfying(CosmosException.class, e -> {
                    assertThat(e.getStatusCode()).isEqualTo(400);
                    assertThat(e.getMessage()).contains("Cannot replace container " + database + ".orders: its "
                            + "partition key cannot be changed (it is /customerId, the replace asks for /region)");
                });
        CosmosContainerProperties read = orders.read().getProperties();
        read.setDefaultTimeToLiveInSeconds(60);
        orders.replace(read);
        read.setDefaultTimeToLiveInSeconds(120);
        assertThatThrownBy(() -> orders.replace(read, new CosmosContainerRequestOptions()
                .setIfMatchETag(read.getETag())))
                .isInstanceOfSatisfying(CosmosException.class, e -> assertThat(e.getStatusCode()).isEqualTo(412));
        client.getDatabase(database).createContainer(new CosmosContainerProperties("doomed", "/id"));
        CosmosContainer doomed = client.getDatabase(database).getContainer("doomed");
        CosmosContainerProperties gone = doomed.read().getProperties();
        doomed.delete();
        assertThatThrownBy(() -> doomed.replace(gone))
                .isInstanceOfSatisfying(CosmosException.class, e -> assertThat(e.getStatusCode()).isEqualTo(404));
        try (CosmosClient reader = gateway.client(gateway.readOnlyKey)) {
            CosmosContainer readOnly = reader.getDatabase(database).getContainer("orders");
            CosmosContainerProperties asked = readOnly.read().getProperties();
            asked.setDefaultTimeToLiveInSeconds(5);
            assertThatThrownBy(() -> readOnly.replace(asked))
                    .isInstanceOfSatisfying(CosmosException.class, e -> assertThat(e.getStatusCode()).isEqualTo(403));
        }
        assertThat(store.readContainer(database + ".orders").defaultTtl()).isEqualTo(60);
        assertThat(store.readContainer(database + ".orders").partitionKeyPath()).isEqualTo("/customerId");
    }

    @Test
    void itemsAreCreatedReadReplacedUpsertedAndDeleted() {
        String database = freshDatabase();
        CosmosContainer orders = orders(database);
        CosmosItemResponse<ObjectNode> created = orders.createItem(order("o1", "c1", 10));
        assertThat(created.getStatusCode()).isEqualTo(201);
        assertThat(created.getETag()).isNotBlank();
        assertThat(created.getRequestCharge()).isPositive();

        ObjectNode read = orders.readItem("o1", new PartitionKey("c1"), ObjectNode.class).getItem();
        assertThat(read.get("total").intValue()).isEqualTo(10);
        assertThat(read.get("_rid").asText()).isNotBlank();
        assertThat(read.get("_etag").asText()).isEqualTo(created.getETag());
        assertThat(read.get("_ts").asLong()).isPositive();

        orders.replaceItem(order("o1", "c1", 11), "o1", new PartitionKey("c1"), new CosmosItemRequestOptions());
        assertThat(orders.upsertItem(order("o2", "c1", 20)).getStatusCode()).isEqualTo(201);
        assertThat(orders.upsertItem(order("o2", "c1", 21)).getStatusCode()).isEqualTo(200);
        assertThat(orders.readItem("o1", new PartitionKey("c1"), ObjectNode.class).getItem().get("total").intValue())
                .isEqualTo(11);
        assertThat(orders.readItem("o2", new PartitionKey("c1"), ObjectNode.class).getItem().get("total").intValue())
                .isEqualTo(21);

        assertThat(orders.deleteItem("o1", new PartitionKey("c1"), new CosmosItemRequestOptions()).getStatusCode())
                .isEqualTo(204);
        assertThatThrownBy(() -> orders.readItem("o1", new PartitionKey("c1"), ObjectNode.class))
                .isInstanceOfSatisfying(CosmosException.class, e -> assertThat(e.getStatusCode()).isEqualTo(404));
        assertThatThrownBy(() -> orders.createItem(order("o2", "c1", 1)))
                .isInstanceOfSatisfying(CosmosException.class, e -> assertThat(e.getStatusCode()).isEqualTo(409));
    }

    @Test
    void conditionalWritesCheckTheEtag() {
        String database = freshDatabase();
        CosmosContainer orders = orders(database);
        String first = orders.createItem(order("o1", "c1", 10)).getETag();
        String second = orders.replaceItem(order("o1", "c1", 11), "o1", new PartitionKey("c1"),
                new CosmosItemRequestOptions().setIfMatchETag(first)).getETag();

        assertThatThrownBy(() -> orders.replaceItem(order("o1", "c1", 12), "o1", new PartitionKey("c1"),
                new CosmosItemRequestOptions().setIfMatchETag(first)))
                .isInstanceOfSatisfying(CosmosException.class, e -> assertThat(e.getStatusCode()).isEqualTo(412));
        assertThatThrownBy(() -> orders.deleteItem("o1", new PartitionKey("c1"),
                new CosmosItemRequestOptions().setIfMatchETag(first)))
                .isInstanceOfSatisfying(CosmosException.class, e -> assertThat(e.getStatusCode()).isEqualTo(412));
        assertThat(orders.readItem("o1", new PartitionKey("c1"), ObjectNode.class).getItem().get("total").intValue())
                .isEqualTo(11);
        assertThat(orders.readItem("o1", new PartitionKey("c1"),
                new CosmosItemRequestOptions().setIfNoneMatchETag(second), ObjectNode.class).getStatusCode())
                .isEqualTo(304);
        assertThat(orders.readItem("o1", new PartitionKey("c1"),
                new CosmosItemRequestOptions().setIfNoneMatchETag(first), ObjectNode.class).getStatusCode())
                .isEqualTo(200);
        assertThat(orders.deleteItem("o1", new PartitionKey("c1"),
                new CosmosItemRequestOptions().setIfMatchETag(second)).getStatusCode()).isEqualTo(204);
    }

    @Test
    void patchAppliesEveryOperation() {
        String database = freshDatabase();
        CosmosContainer orders = orders(database);
        ObjectNode order = order("o1", "c1", 10).put("status", "new").put("note", "x");
        order.putArray("lines").add("a");
        orders.createItem(order);

        CosmosItemResponse<ObjectNode> patched = orders.patchItem("o1", new PartitionKey("c1"),
                CosmosPatchOperations.create().set("/status", "paid").increment("/total", 5).remove("/note")
                        .add("/lines/-", "b"),
                ObjectNode.class);

        ObjectNode item = patched.getItem();
        assertThat(item.get("status").asText()).isEqualTo("paid");
        assertThat(item.get("total").intValue()).isEqualTo(15);
        assertThat(item.has("note")).isFalse();
        assertThat(item.get("lines").toString()).isEqualTo("[\"a\",\"b\"]");
        assertThatThrownBy(() -> orders.patchItem("o1", new PartitionKey("c1"),
                CosmosPatchOperations.create().remove("/missing"), ObjectNode.class))
                .isInstanceOfSatisfying(CosmosException.class, e -> assertThat(e.getStatusCode()).isEqualTo(400));
    }

    @Test
    void aTransactionalBatchIsAllOrNothing() {
        String database = freshDatabase();
        CosmosContainer orders = orders(database);
        orders.createItem(order("o1", "c1", 10));

        CosmosBatch batch = CosmosBatch.createCosmosBatch(new PartitionKey("c1"));
        batch.createItemOperation(order("o2", "c1", 20));
        batch.upsertItemOperation(order("o3", "c1", 30));
        batch.replaceItemOperation("o1", order("o1", "c1", 11));
        batch.readItemOperation("o1");
        batch.patchItemOperation("o2", CosmosPatchOperations.create().increment("/total", 1));
        CosmosBatchResponse applied = orders.executeCosmosBatch(batch);
        assertThat(applied.isSuccessStatusCode()).isTrue();
        assertThat(applied.getResults()).extracting(result -> result.getStatusCode())
                .containsExactly(201, 201, 200, 200, 200);
        assertThat(applied.getResults().get(3).getItem(ObjectNode.class).get("total").intValue()).isEqualTo(11);
        assertThat(orders.readItem("o2", new PartitionKey("c1"), ObjectNode.class).getItem().get("total").intValue())
                .isEqualTo(21);

        CosmosBatch failing = CosmosBatch.createCosmosBatch(new PartitionKey("c1"));
        failing.deleteItemOperation("o3");
        failing.createItemOperation(order("o1", "c1", 99));
        failing.createItemOperation(order("o4", "c1", 40));
        CosmosBatchResponse failed = orders.executeCosmosBatch(failing);
        assertThat(failed.isSuccessStatusCode()).isFalse();
        assertThat(failed.getStatusCode()).isEqualTo(409);
        assertThat(failed.getResults()).extracting(result -> result.getStatusCode()).containsExactly(424, 409, 424);
        assertThat(orders.readItem("o3", new PartitionKey("c1"), ObjectNode.class).getStatusCode()).isEqualTo(200);
        assertThatThrownBy(() -> orders.readItem("o4", new PartitionKey("c1"), ObjectNode.class))
                .isInstanceOfSatisfying(CosmosException.class, e -> assertThat(e.getStatusCode()).isEqualTo(404));
    }

    @Test
    void partitionKeysOfAnyCharactersRoundTrip() {
        String database = freshDatabase();
        CosmosContainer orders = orders(database);
        for (String customer : List.of("日本 \"quoted\" \\ back", "emoji 😀", "", "a/b?c#d%20e", "line\nbreak")) {
            orders.createItem(order("o-" + customer.hashCode(), customer, 1));
            ObjectNode read = orders.readItem("o-" + customer.hashCode(), new PartitionKey(customer), ObjectNode.class)
                    .getItem();
            assertThat(read.get("customerId").asText()).isEqualTo(customer);
            assertThat(store.readItem(database + ".orders", io.docmirror.store.PartitionKey.of(customer),
                    "o-" + customer.hashCode()).tree().get("customerId").asText()).isEqualTo(customer);
            orders.deleteItem("o-" + customer.hashCode(), new PartitionKey(customer), new CosmosItemRequestOptions());
        }
        // Ids are path segments the SDK escapes and signs as they are.
        String id = "ordre n° 1 é 😀 +%";
        orders.createItem(order(id, "c1", 5));
        assertThat(orders.readItem(id, new PartitionKey("c1"), ObjectNode.class).getItem().get("id").asText())
                .isEqualTo(id);
        orders.deleteItem(id, new PartitionKey("c1"), new CosmosItemRequestOptions());
        ObjectNode numeric = JSON.createObjectNode().put("id", "n").put("customerId", 42);
        orders.createItem(numeric);
        assertThat(orders.readItem("n", new PartitionKey(42), ObjectNode.class).getItem().get("customerId").intValue())
                .isEqualTo(42);
        orders.createItem(JSON.createObjectNode().put("id", "none"));
        assertThat(orders.readItem("none", PartitionKey.NONE, ObjectNode.class).getStatusCode()).isEqualTo(200);
    }

    @Test
    void theStoresFeedRangesAreTheSdksPartitionKeyRanges() {
        String database = freshDatabase();
        CosmosContainer orders = orders(database);
        List<FeedRange> ranges = orders.getFeedRanges();
        assertThat(ranges).hasSize(store.readContainer(database + ".orders").logPartitions());
    }

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void theChangeFeedInLatestVersionModeGivesEachItemsNewestVersionOnce() {
        String database = freshDatabase();
        CosmosContainer orders = orders(database);
        for (int index = 1; index <= 20; index++) {
            orders.createItem(order("o" + index, "c" + (index % 7), index));
        }
        orders.upsertItem(order("o1", "c1", 100));
        orders.upsertItem(order("o1", "c1", 101));
        orders.deleteItem("o2", new PartitionKey("c2"), new CosmosItemRequestOptions());

        ChangeFeedRead first = readChangeFeed(orders,
                CosmosChangeFeedRequestOptions.createForProcessingFromBeginning(FeedRange.forFullRange()));
        assertThat(first.ids()).hasSize(19).doesNotHaveDuplicates().doesNotContain("o2").contains("o1", "o20");
        assertThat(first.documents().stream().filter(document -> document.get("id").asText().equals("o1"))
                .findFirst().orElseThrow().get("total").intValue()).isEqualTo(101);

        orders.createItem(order("o21", "c0", 21));
        orders.upsertItem(order("o3", "c3", 300));
        ChangeFeedRead next = readChangeFeed(orders,
                CosmosChangeFeedRequestOptions.createForProcessingFromContinuation(first.continuation()));
        assertThat(next.ids()).containsExactlyInAnyOrder("o21", "o3");

        ChangeFeedRead onePartition = readChangeFeed(orders, CosmosChangeFeedRequestOptions
                .createForProcessingFromBeginning(FeedRange.forLogicalPartition(new PartitionKey("c3"))));
        assertThat(onePartition.ids()).containsExactlyInAnyOrder("o3", "o10", "o17");
    }

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void theChangeFeedInAllVersionsAndDeletesModeGivesEveryChange() {
        String database = freshDatabase();
        CosmosContainer orders = orders(database);
        orders.createItem(order("before", "c1", 0));
        ChangeFeedRead now = readChangeFeed(orders, CosmosChangeFeedRequestOptions
                .createForProcessingFromNow(FeedRange.forFullRange()).allVersionsAndDeletes());
        assertThat(now.documents()).isEmpty();

        orders.createItem(order("o1", "c1", 1));
        orders.replaceItem(order("o1", "c1", 2), "o1", new PartitionKey("c1"), new CosmosItemRequestOptions());
        orders.deleteItem("o1", new PartitionKey("c1"), new CosmosItemRequestOptions());
        ChangeFeedRead changes = readChangeFeed(orders, CosmosChangeFeedRequestOptions
                .createForProcessingFromContinuation(now.continuation()).allVersionsAndDeletes());

        assertThat(changes.documents()).extracting(change -> change.path("metadata").path("operationType").asText())
                .containsExactly("create", "replace", "delete");
        JsonNode create = changes.documents().get(0);
        JsonNode replace = changes.documents().get(1);
        JsonNode delete = changes.documents().get(2);
        assertThat(create.path("current").path("total").intValue()).isEqualTo(1);
        assertThat(replace.path("current").path("total").intValue()).isEqualTo(2);
        assertThat(replace.path("metadata").path("previousImageLSN").longValue())
                .isEqualTo(create.path("metadata").path("lsn").longValue());
        assertThat(delete.has("current")).isFalse();
        assertThat(delete.path("metadata").path("id").asText()).isEqualTo("o1");
        assertThat(delete.path("metadata").path("partitionKey").path("customerId").asText()).isEqualTo("c1");
        assertThat(delete.path("metadata").path("timeToLiveExpired").booleanValue()).isFalse();
    }

    @Test
    void configuredAsAnAccountWithoutAllVersionsAndDeletesItRefusesThatModeAsCosmosDbDoes(@TempDir Path directory)
            throws Exception {
        try (TestingCosmosGateway latestOnly = TestingCosmosGateway.start(directory,
                StoreConfig.defaults().withCosmosAllVersionsAndDeletes(false))) {
            latestOnly.client.createDatabase("shop");
            latestOnly.client.getDatabase("shop").createContainer(new CosmosContainerProperties("orders",
                    "/customerId"));
            CosmosContainer orders = latestOnly.client.getDatabase("shop").getContainer("orders");
            orders.createItem(order("o1", "c1", 1));

            assertThatThrownBy(() -> readChangeFeed(orders, CosmosChangeFeedRequestOptions
                    .createForProcessingFromNow(FeedRange.forFullRange()).allVersionsAndDeletes()))
                    .isInstanceOfSatisfying(CosmosException.class, e -> {
                        assertThat(e.getStatusCode()).isEqualTo(400);
                        assertThat(e.getMessage()).contains("Change Feed 'All Versions and Deletes' mode must be "
                                + "enabled.");
                    });
            assertThat(readChangeFeed(orders, CosmosChangeFeedRequestOptions
                    .createForProcessingFromBeginning(FeedRange.forFullRange())).ids()).containsExactly("o1");
        }
    }

    /** The documents of a change feed read until it has nothing more, and where to go on from. */
    private record ChangeFeedRead(List<JsonNode> documents, String continuation) {
        List<String> ids() {
            return documents.stream().map(document -> document.get("id").asText()).toList();
        }
    }

    private static ChangeFeedRead readChangeFeed(CosmosContainer container, CosmosChangeFeedRequestOptions options) {
        List<JsonNode> documents = new ArrayList<>();
        String continuation = null;
        for (FeedResponse<JsonNode> page : container.queryChangeFeed(options, JsonNode.class).iterableByPage()) {
            documents.addAll(page.getResults());
            continuation = page.getContinuationToken();
        }
        return new ChangeFeedRead(documents, continuation);
    }

    @Test
    void numbersKeepEveryDigitThroughItemsAndBatches() {
        String database = freshDatabase();
        CosmosContainer orders = orders(database);
        BigDecimal exact = new BigDecimal("12345678901234567890.123456789012345678901");
        orders.createItem(order("o1", "c1", 1).put("amount", exact));
        CosmosBatch batch = CosmosBatch.createCosmosBatch(new PartitionKey("c1"));
        batch.createItemOperation(order("o2", "c1", 2).put("amount", exact));
        assertThat(orders.executeCosmosBatch(batch).isSuccessStatusCode()).isTrue();

        for (String id : List.of("o1", "o2")) {
            assertThat(store.readItem(database + ".orders", io.docmirror.store.PartitionKey.of("c1"), id).json())
                    .contains("\"amount\":12345678901234567890.123456789012345678901");
        }
        // (The SDK itself reads JSON numbers as doubles, as it does against Cosmos DB: what it shows is rounded.)
    }

    @Test
    void aWrongKeyIsRefusedAndTheReadOnlyKeyOnlyReads() {
        String database = freshDatabase();
        CosmosContainer orders = orders(database);
        orders.createItem(order("o1", "c1", 10));

        // The SDK reads the account as it starts, and fails to start with the 401 it got.
        assertThatThrownBy(() -> gateway.client(TestingCosmosGateway.randomKey()).close())
                .hasMessageContaining("\"statusCode\":401")
                .hasMessageContaining("The input authorization token can't serve the request");

        try (CosmosClient reader = gateway.client(gateway.readOnlyKey)) {
            CosmosContainer readOnly = reader.getDatabase(database).getContainer("orders");
            assertThat(readOnly.readItem("o1", new PartitionKey("c1"), ObjectNode.class).getItem().get("total")
                    .intValue()).isEqualTo(10);
            assertThatThrownBy(() -> readOnly.upsertItem(order("o1", "c1", 0)))
                    .isInstanceOfSatisfying(CosmosException.class, e -> assertThat(e.getStatusCode()).isEqualTo(403));
        }
        assertThat(orders.readItem("o1", new PartitionKey("c1"), ObjectNode.class).getItem().get("total").intValue())
                .isEqualTo(10);
    }

    /** A new database with a container {@code orders} partitioned by {@code /customerId}; returns its name. */
    private String freshDatabase() {
        String name = "db" + UUID.randomUUID().toString().substring(0, 8);
        client.createDatabase(name);
        client.getDatabase(name).createContainer(new CosmosContainerProperties("orders", "/customerId"));
        return name;
    }

    private CosmosContainer orders(String database) {
        return client.getDatabase(database).getContainer("orders");
    }

    private static ObjectNode order(String id, String customer, int total) {
        return JSON.createObjectNode().put("id", id).put("customerId", customer).put("total", total);
    }
}
