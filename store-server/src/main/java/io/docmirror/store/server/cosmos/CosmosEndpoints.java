package io.docmirror.store.server.cosmos;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.docmirror.store.BatchOperation;
import io.docmirror.store.BatchResult;
import io.docmirror.store.BulkOperation;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.EffectivePartitionKey;
import io.docmirror.store.Item;
import io.docmirror.store.PartitionKey;
import io.docmirror.store.StoreClient;
import io.docmirror.store.StoreConfig;
import io.docmirror.store.StoreErrorCode;
import io.docmirror.store.StoreJson;
import io.docmirror.store.Upserted;
import io.docmirror.store.http.WireFormat;
import io.docmirror.store.server.ApiRequest;
import io.docmirror.store.server.ApiResponse;
import io.docmirror.store.server.RequestHeaders;
import io.docmirror.store.server.Router;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * Cosmos DB for NoSQL's REST protocol in gateway mode (docs/http-api.md, "Cosmos DB routes"), so that the official
 * SDKs work against the store unchanged: the database account, databases, containers, partition key ranges and items
 * (create, upsert, read, replace, patch, delete, transactional batch) and the change feed ({@link CosmosChangeFeed}).
 * Databases map onto the store's containers as {@link CosmosDatabases} says. Queries run as {@link CosmosQueries}
 * says.
 */
public final class CosmosEndpoints {
    private static final String DATABASE = "/dbs/{db}";
    private static final String CONTAINER = DATABASE + "/colls/{coll}";
    private static final String SESSION_TOKEN = "x-ms-session-token";
    private static final String OWNER_NAME = "x-ms-alt-content-path";
    private static final String OWNER_ID = "x-ms-content-path";
    private static final String IS_BATCH = "x-ms-cosmos-is-batch-request";
    private static final String IS_ATOMIC = "x-ms-cosmos-batch-atomic";
    private static final String CONTINUE_ON_ERROR = "x-ms-cosmos-batch-continue-on-error";

    private final StoreClient store;
    private final CosmosDatabases databases;
    private final CosmosContainers containers;
    private final CosmosChangeFeed changeFeed;
    private final CosmosQueries queries;
    private final boolean tls;

    /**
     * @param config the most changes one change feed answer holds and results one page of a query, the queries'
     *     budgets, and whether the change feed offers all versions and deletes (or answers it as an account without
     *     that mode does)
     * @param tls whether the server speaks TLS, so the account's endpoints are https
     */
    public CosmosEndpoints(StoreClient store, StoreConfig config, boolean tls) {
        this.store = requireNonNull(store, "store is null");
        this.databases = new CosmosDatabases(store);
        this.containers = new CosmosContainers(store, databases);
        this.changeFeed = new CosmosChangeFeed(store, config.httpMaxPageItems(), config.cosmosAllVersionsAndDeletes());
        this.queries = new CosmosQueries(store, config.httpMaxPageItems(), config.queryMaxRowsPerPage(),
                config.queryMaxPageTime());
        this.tls = tls;
    }

    Router router() {
        return Router.builder()
                .add("GET", "/", this::account)
                .add("GET", "/dbs", this::listDatabases)
                .add("POST", "/dbs", this::createDatabase)
                .add("GET", DATABASE, this::readDatabase)
                .add("DELETE", DATABASE, this::deleteDatabase)
                .add("GET", DATABASE + "/colls", this::listContainers)
                .add("POST", DATABASE + "/colls", this::createContainer)
                .add("GET", CONTAINER, this::readContainer)
                .add("PUT", CONTAINER, this::replaceContainer)
                .add("DELETE", CONTAINER, this::deleteContainer)
                .add("GET", CONTAINER + "/pkranges", this::partitionKeyRanges)
                .add("GET", CONTAINER + "/docs", this::readFeed)
                .add("POST", CONTAINER + "/docs", this::postItem)
                .add("GET", CONTAINER + "/docs/{id}", this::readItem)
                .add("PUT", CONTAINER + "/docs/{id}", this::replaceItem)
                .add("PATCH", CONTAINER + "/docs/{id}", this::patchItem)
                .add("DELETE", CONTAINER + "/docs/{id}", this::deleteItem)
                .build();
    }

    // The account

    /**
     * The database account, which the SDKs read first: one region whose endpoint is the address the client used,
     * session consistency, and the limits of the query engine.
     */
    private ApiResponse account(ApiRequest request, Map<String, String> path) {
        String endpoint = (tls ? "https://" : "http://") + request.header("Host").orElse("127.0.0.1") + "/";
        ObjectNode account = StoreJson.mapper().createObjectNode();
        account.put("_self", "").put("id", "docmirror").put("_rid", "docmirror")
                .put("media", "//media/").put("addresses", "//addresses/").put("_dbs", "//dbs/");
        ObjectNode location = StoreJson.mapper().createObjectNode().put("name", "docmirror")
                .put("databaseAccountEndpoint", endpoint);
        account.putArray("writableLocations").add(location);
        account.putArray("readableLocations").add(location.deepCopy());
        account.put("enableMultipleWriteLocations", false)
                .put("enablePerPartitionFailoverBehavior", false)
                .put("enableNRegionSynchronousCommit", false);
        account.putObject("userReplicationPolicy").put("asyncReplication", false).put("minReplicaSetSize", 1)
                .put("maxReplicasetSize", 1);
        account.putObject("userConsistencyPolicy").put("defaultConsistencyLevel", "Session");
        account.putObject("systemReplicationPolicy").put("minReplicaSetSize", 1).put("maxReplicasetSize", 1);
        account.putObject("readPolicy").put("primaryReadCoefficient", 1).put("secondaryReadCoefficient", 1);
        account.put("queryEngineConfiguration", "{\"maxSqlQueryInputLength\":262144,\"maxJoinsPerSqlQuery\":5,"
                + "\"maxLogicalAndPerSqlQuery\":500,\"maxLogicalOrPerSqlQuery\":500,\"maxUdfRefPerSqlQuery\":10,"
                + "\"maxInExpressionItemsCount\":16000,\"queryMaxInMemorySortDocumentCount\":500,"
                + "\"maxQueryRequestTimeoutFraction\":0.9,\"sqlAllowNonFiniteNumbers\":false,"
                + "\"sqlAllowAggregateFunctions\":true,\"sqlAllowSubQuery\":true,\"sqlAllowScalarSubQuery\":true,"
                + "\"allowNewKeywordsAsIdentifiers\":true,\"enableSpatialIndexing\":true,"
                + "\"maxSpatialQueryCells\":12,\"spatialMaxGeometryPointCount\":256,"
                + "\"sqlDisableOptimizationFlags\":0,\"sqlEnableParameterizedQueryFlag\":true}");
        return CosmosWire.json(200, account);
    }

    // Databases

    private ApiResponse listDatabases(ApiRequest request, Map<String, String> path) {
        List<JsonNode> list = databases.list().stream().map(CosmosWire::database).toList();
        return CosmosWire.feed(request, "", "Databases", list);
    }

    private ApiResponse createDatabase(ApiRequest request, Map<String, String> path) {
        JsonNode body = CosmosWire.object(request.body(), "Cannot create database");
        String id = CosmosWire.requiredString(body, "id", "Cannot create database");
        return CosmosWire.json(201, CosmosWire.database(databases.create(id)));
    }

    private ApiResponse readDatabase(ApiRequest request, Map<String, String> path) {
        return CosmosWire.json(200, CosmosWire.database(databases.resolve(path.get("db"))));
    }

    private ApiResponse deleteDatabase(ApiRequest request, Map<String, String> path) {
        databases.delete(databases.resolve(path.get("db")).id());
        return ApiResponse.empty(204);
    }

    // Containers

    private ApiResponse listContainers(ApiRequest request, Map<String, String> path) {
        CosmosDatabases.Database database = databases.resolve(path.get("db"));
        List<JsonNode> list = databases.containers(database).stream()
                .map(properties -> CosmosWire.container(database, properties))
                .toList();
        return owned(CosmosWire.feed(request, database.resourceId(), "DocumentCollections", list), database);
    }

    private ApiResponse createContainer(ApiRequest request, Map<String, String> path) {
        CosmosDatabases.Database database = databases.resolve(path.get("db"));
        ContainerProperties created = store.createContainer(containers.fromCosmos(database, request.body()));
        return owned(CosmosWire.json(201, CosmosWire.container(database, created)), database);
    }

    private ApiResponse readContainer(ApiRequest request, Map<String, String> path) {
        CosmosContainers.Resolved container = containers.resolve(path.get("db"), path.get("coll"));
        return owned(CosmosWire.json(200, CosmosWire.container(container.database(), container.properties())),
                container.database());
    }

    /**
     * Replacing a container's settings ({@link StoreClient#replaceContainer}): its TTLs may change, with an optional
     * {@code If-Match} of its {@code _etag}.
     */
    private ApiResponse replaceContainer(ApiRequest request, Map<String, String> path) {
        CosmosContainers.Resolved container = containers.resolve(path.get("db"), path.get("coll"));
        ContainerProperties replaced = store.replaceContainer(container.properties().id(),
                containers.replacement(container, request.body()), RequestHeaders.precondition(request));
        return owned(CosmosWire.json(200, CosmosWire.container(container.database(), replaced)),
                container.database());
    }

    private ApiResponse deleteContainer(ApiRequest request, Map<String, String> path) {
        store.deleteContainer(containers.resolve(path.get("db"), path.get("coll")).properties().id());
        return ApiResponse.empty(204);
    }

    /**
     * The container's partition key ranges, one per log partition (feed range), read by the SDKs as a change feed:
     * the first read answers every range with an ETag, and a read with that ETag in {@code If-None-Match} answers
     * 304 (ranges never split or merge in the store).
     */
    private ApiResponse partitionKeyRanges(ApiRequest request, Map<String, String> path) {
        CosmosContainers.Resolved container = containers.resolve(path.get("db"), path.get("coll"));
        String etag = "\"" + container.properties().logPartitions() + "\"";
        if (request.header("If-None-Match").filter(etag::equals).isPresent()) {
            return ApiResponse.empty(304).withHeader("etag", etag);
        }
        int count = container.properties().logPartitions();
        List<JsonNode> ranges = new ArrayList<>();
        for (int index = 0; index < count; index++) {
            ObjectNode range = StoreJson.mapper().createObjectNode();
            range.put("id", Integer.toString(index))
                    .put("_rid", container.resourceId() + "#" + index)
                    .put("minInclusive", EffectivePartitionKey.rangeStart(index, count))
                    .put("maxExclusive", EffectivePartitionKey.rangeStart(index + 1, count))
                    .put("ridPrefix", index)
                    .put("throughputFraction", 1.0 / count)
                    .put("status", "online")
                    .put("_self", container.selfLink() + "pkranges/" + index + "/")
                    .put("_etag", etag)
                    .put("_ts", 0);
            range.putArray("parents");
            ranges.add(range);
        }
        return CosmosWire.feed(request, container.resourceId(), "PartitionKeyRanges", ranges).withHeader("etag", etag);
    }

    // Items

    /** The change feed ({@code A-IM}), or without it a read feed: every item, a page at a time. */
    private ApiResponse readFeed(ApiRequest request, Map<String, String> path) {
        CosmosContainers.Resolved container = containers.resolve(path.get("db"), path.get("coll"));
        if (request.header(CosmosChangeFeed.A_IM).isPresent()) {
            return changeFeed.read(request, container);
        }
        return queries.readFeed(request, container);
    }

    /** Create, upsert ({@code x-ms-documentdb-is-upsert}), a transactional batch, or a query. */
    private ApiResponse postItem(ApiRequest request, Map<String, String> path) {
        CosmosContainers.Resolved container = containers.resolve(path.get("db"), path.get("coll"));
        if (CosmosQueries.isQuery(request)) {
            return queries.answer(request, container);
        }
        if (RequestHeaders.flag(request, IS_BATCH)) {
            // A batch is atomic unless it says otherwise; the SDKs' bulk mode sends its operations as a batch that
            // is not atomic, each operation with its own partition key.
            boolean atomic = request.header(IS_ATOMIC).isEmpty() || RequestHeaders.flag(request, IS_ATOMIC);
            return atomic ? batch(request, container) : bulk(request, container);
        }
        String storeId = container.properties().id();
        byte[] document = request.body();
        // The store checks a stated partition key against the document as it reads it for the write: one parse.
        Optional<PartitionKey> stated = RequestHeaders.partitionKey(request);
        if (RequestHeaders.flag(request, WireFormat.UPSERT_HEADER)) {
            Upserted upserted = store.upsert(storeId, document, RequestHeaders.precondition(request), stated);
            return item(upserted.httpStatus(), container, upserted.item());
        }
        return item(201, container, store.createItem(storeId, document, stated));
    }

    private ApiResponse readItem(ApiRequest request, Map<String, String> path) {
        CosmosContainers.Resolved container = containers.resolve(path.get("db"), path.get("coll"));
        Item item = store.readItem(container.properties().id(), RequestHeaders.requiredPartitionKey(request),
                path.get("id"));
        if (request.header("If-None-Match").filter(item.etag()::equals).isPresent()) {
            return ApiResponse.empty(304).withHeader("etag", item.etag());
        }
        return item(200, container, item);
    }

    private ApiResponse replaceItem(ApiRequest request, Map<String, String> path) {
        CosmosContainers.Resolved container = containers.resolve(path.get("db"), path.get("coll"));
        return item(200, container, store.replaceItem(container.properties().id(),
                RequestHeaders.requiredPartitionKey(request), path.get("id"), request.body(),
                RequestHeaders.precondition(request)));
    }

    private ApiResponse patchItem(ApiRequest request, Map<String, String> path) {
        CosmosContainers.Resolved container = containers.resolve(path.get("db"), path.get("coll"));
        PartitionKey partitionKey = RequestHeaders.requiredPartitionKey(request);
        return item(200, container, store.patchItem(container.properties().id(), partitionKey, path.get("id"),
                CosmosWire.patchOperations(request.body()), RequestHeaders.precondition(request)));
    }

    private ApiResponse deleteItem(ApiRequest request, Map<String, String> path) {
        CosmosContainers.Resolved container = containers.resolve(path.get("db"), path.get("coll"));
        PartitionKey partitionKey = RequestHeaders.requiredPartitionKey(request);
        store.deleteItem(container.properties().id(), partitionKey, path.get("id"),
                RequestHeaders.precondition(request));
        return ApiResponse.empty(204);
    }

    /**
     * A transactional batch: the operations as a JSON array; the answer is one result per operation, 200 when all
     * succeeded, otherwise 207 with the failing operation's own status and 424 for every other (nothing applied).
     */
    private ApiResponse batch(ApiRequest request, CosmosContainers.Resolved container) {
        PartitionKey partitionKey = RequestHeaders.requiredPartitionKey(request);
        List<BatchOperation> operations = CosmosWire.batchOperations(request.body());
        BatchResult result = store.executeBatch(container.properties().id(), partitionKey, operations);
        long lsn = result.results().stream().filter(operation -> operation.item() != null)
                .mapToLong(operation -> operation.item().lsn()).max().orElse(0);
        return CosmosWire.json(result.isSuccess() ? 200 : 207, operationResults(result.results()))
                .withHeader(SESSION_TOKEN, sessionToken(container, partitionKey, lsn));
    }

    /** One result per operation of a batch or bulk request, as the SDKs read them. */
    private static ArrayNode operationResults(List<BatchResult.OperationResult> outcomes) {
        ArrayNode results = StoreJson.mapper().createArrayNode();
        for (BatchResult.OperationResult operation : outcomes) {
            ObjectNode node = results.addObject();
            node.put("statusCode", operation.status()).put("requestCharge", 1.0);
            if (operation.etag() != null) {
                node.put("eTag", operation.etag());
            }
            if (operation.item() != null) {
                node.set("resourceBody", operation.item().tree());
            }
        }
        return results;
    }

    /**
     * Bulk operations: each applied on its own, in order; the answer is one result per operation, 200 when all
     * succeeded, otherwise 207. With {@code x-ms-cosmos-batch-continue-on-error: false} the operations after the
     * first failure are not applied and answer 424.
     */
    private ApiResponse bulk(ApiRequest request, CosmosContainers.Resolved container) {
        boolean continueOnError = request.header(CONTINUE_ON_ERROR).isEmpty()
                || RequestHeaders.flag(request, CONTINUE_ON_ERROR);
        List<BulkOperation> operations = CosmosWire.bulkOperations(request.body());
        List<BatchResult.OperationResult> results = new ArrayList<>();
        if (continueOnError) {
            results.addAll(store.executeBulk(container.properties().id(), operations));
        } else {
            boolean failed = false;
            for (BulkOperation operation : operations) {
                BatchResult.OperationResult result = failed
                        ? new BatchResult.OperationResult(StoreErrorCode.FAILED_DEPENDENCY.httpStatus(), null, null,
                                "Not applied: an earlier operation failed and " + CONTINUE_ON_ERROR + " is false")
                        : store.executeBulk(container.properties().id(), List.of(operation)).get(0);
                failed |= result.status() >= 300;
                results.add(result);
            }
        }
        return CosmosWire.json(results.stream().allMatch(result -> result.status() < 300) ? 200 : 207,
                operationResults(results));
    }

    /**
     * An answer about a database's containers, naming the database as its owner: the SDKs make a container's name
     * path ({@code dbs/shop/colls/orders}) from it.
     */
    private static ApiResponse owned(ApiResponse response, CosmosDatabases.Database database) {
        return response.withHeader(OWNER_NAME, "dbs/" + database.id())
                .withHeader(OWNER_ID, database.resourceId());
    }

    private static ApiResponse item(int status, CosmosContainers.Resolved container, Item item) {
        return ApiResponse.json(status, CosmosWire.withLinks(item.jsonBytes(), container))
                .withHeader(OWNER_NAME, "dbs/" + container.database().id() + "/colls/" + container.id())
                .withHeader(OWNER_ID, container.resourceId())
                .withHeader("etag", item.etag())
                .withHeader(SESSION_TOKEN, sessionToken(container, item.partitionKey(), item.lsn()))
                .withHeader("lsn", Long.toString(item.lsn()));
    }

    /**
     * A session token as the SDKs parse it: {@code <partition key range>:<version>#<lsn>}; the range is the item's
     * log partition, the version always 0 (ranges never split).
     */
    private static String sessionToken(CosmosContainers.Resolved container, PartitionKey partitionKey, long lsn) {
        return container.properties().logPartitionOf(partitionKey) + ":0#" + lsn;
    }
}
