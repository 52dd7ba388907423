package io.docmirror.store.server.docmirror;

import io.docmirror.store.BatchResult;
import io.docmirror.store.BulkOptions;
import io.docmirror.store.BulkResult;
import io.docmirror.store.ChangeLogPage;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.Item;
import io.docmirror.store.ItemPage;
import io.docmirror.store.PartitionKey;
import io.docmirror.store.StoreClient;
import io.docmirror.store.StoreConfig;
import io.docmirror.store.StoreErrorCode;
import io.docmirror.store.StoreException;
import io.docmirror.store.StoreJson;
import io.docmirror.store.Upserted;
import io.docmirror.store.http.WireFormat;
import io.docmirror.store.server.ApiRequest;
import io.docmirror.store.server.ApiResponse;
import io.docmirror.store.server.PageSize;
import io.docmirror.store.server.RequestBodies;
import io.docmirror.store.server.RequestHeaders;
import io.docmirror.store.server.Router;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;

import static java.util.Objects.requireNonNull;

/**
 * The API's endpoints (docs/http-api.md): each route's request read into a {@link StoreClient} call, and its result
 * written as the answer. Pages (scan, change log, change feed) hold at most {@code maxPageItems}.
 */
public final class StoreEndpoints {
    private static final String CONTAINER = "/containers/{container}";
    private static final Pattern ROUTE_NAME = Pattern.compile("[a-z][a-z0-9-]*");
    private static final Set<String> BUILT_IN_RESOURCES = Set.of("items", "batch", "bulk", "scan", "changelog",
            "changefeed", "snapshots");

    private final StoreClient store;
    private final int maxPageItems;
    private final ChangeFeedHttpRoute changeFeed;
    private final Map<String, ContainerRoute> extraRoutes;
    private final Optional<SnapshotEndpoints> snapshots;

    /**
     * @param config the page sizes
     * @param extraRoutes read-only routes below {@code /containers/{c}/<name>} added by the caller
     * @param snapshots the snapshots held for clients, when the store offers snapshots
     * @throws IllegalArgumentException when an extra route's name is not a lower-case word or is a built-in one
     */
    public StoreEndpoints(StoreClient store, StoreConfig config, Map<String, ContainerRoute> extraRoutes,
            Optional<HeldSnapshots> snapshots) {
        this.store = requireNonNull(store, "store is null");
        this.maxPageItems = config.httpMaxPageItems();
        this.snapshots = snapshots.map(held -> new SnapshotEndpoints(held, maxPageItems));
        this.changeFeed = new ChangeFeedHttpRoute(store);
        this.extraRoutes = Map.copyOf(extraRoutes);
        for (String name : this.extraRoutes.keySet()) {
            if (!ROUTE_NAME.matcher(name).matches() || BUILT_IN_RESOURCES.contains(name)) {
                throw new IllegalArgumentException("Cannot serve route /containers/{c}/" + name + ": a route's name is "
                        + "a lower-case word other than " + String.join(", ", BUILT_IN_RESOURCES));
            }
        }
    }

    Router router() {
        Router.Builder router = Router.builder()
                .add("GET", "/containers", this::listContainers)
                .add("POST", "/containers", this::createContainer)
                .add("GET", CONTAINER, this::readContainer)
                .add("PUT", CONTAINER, this::replaceContainer)
                .add("DELETE", CONTAINER, this::deleteContainer)
                .add("GET", CONTAINER + "/items", this::readPartition)
                .add("POST", CONTAINER + "/items", this::createItem)
                .add("GET", CONTAINER + "/items/{id}", this::readItem)
                .add("PUT", CONTAINER + "/items/{id}", this::replaceItem)
                .add("PATCH", CONTAINER + "/items/{id}", this::patchItem)
                .add("DELETE", CONTAINER + "/items/{id}", this::deleteItem)
                .add("POST", CONTAINER + "/batch", this::batch)
                .add("POST", CONTAINER + "/bulk", this::bulkWrite)
                .add("POST", CONTAINER + "/bulk/operations", this::bulkOperations)
                .add("GET", CONTAINER + "/scan/{logPartition}", this::scan)
                .add("GET", CONTAINER + "/changelog/{logPartition}", this::changeLog)
                .add("GET", CONTAINER + "/changefeed", (request, path) -> ApiResponse.json(200,
                        changeFeed.get(path.get("container"), cappedQuery(request))));
        snapshots.ifPresent(endpoints -> endpoints.addTo(router));
        extraRoutes.forEach((name, route) -> router.add("GET", CONTAINER + "/" + name,
                (request, path) -> ApiResponse.json(200, route.get(path.get("container"), cappedQuery(request)))));
        return router.build();
    }

    // Containers

    private ApiResponse listContainers(ApiRequest request, Map<String, String> path) throws IOException {
        return ApiResponse.json(200, StoreJson.mapper().writeValueAsBytes(Map.of("containers", store.listContainers())));
    }

    private ApiResponse createContainer(ApiRequest request, Map<String, String> path) throws IOException {
        ContainerProperties created = store.createContainer(RequestBodies.containerProperties(request.body()));
        return ApiResponse.json(201, StoreJson.mapper().writeValueAsBytes(created));
    }

    private ApiResponse readContainer(ApiRequest request, Map<String, String> path) throws IOException {
        return ApiResponse.json(200, StoreJson.mapper().writeValueAsBytes(store.readContainer(path.get("container"))));
    }

    /** The container's settings replaced by the body's (its TTLs may change), with an optional {@code If-Match}. */
    private ApiResponse replaceContainer(ApiRequest request, Map<String, String> path) throws IOException {
        String container = path.get("container");
        ContainerProperties asked = RequestBodies.containerReplacement(request.body(), store.readContainer(container));
        return ApiResponse.json(200, StoreJson.mapper().writeValueAsBytes(
                store.replaceContainer(container, asked, RequestHeaders.precondition(request))));
    }

    private ApiResponse deleteContainer(ApiRequest request, Map<String, String> path) {
        store.deleteContainer(path.get("container"));
        return ApiResponse.empty(204);
    }

    // Items

    private ApiResponse readPartition(ApiRequest request, Map<String, String> path) {
        List<Item> items = store.readPartition(path.get("container"), RequestHeaders.requiredPartitionKey(request));
        return ApiResponse.json(200, WireFormat.items("items", items, WireFormat.Extra.NONE));
    }

    /** Create, or upsert with {@code x-ms-documentdb-is-upsert: true}. */
    private ApiResponse createItem(ApiRequest request, Map<String, String> path) {
        String container = path.get("container");
        byte[] document = request.body();
        // The store checks a stated partition key against the document as it reads it for the write: one parse.
        Optional<PartitionKey> stated = RequestHeaders.partitionKey(request);
        if (RequestHeaders.flag(request, WireFormat.UPSERT_HEADER)) {
            Upserted upserted = store.upsert(container, document, RequestHeaders.precondition(request), stated);
            return item(upserted.httpStatus(), upserted.item());
        }
        return item(201, store.createItem(container, document, stated));
    }

    private ApiResponse readItem(ApiRequest request, Map<String, String> path) {
        return item(200, store.readItem(path.get("container"), RequestHeaders.requiredPartitionKey(request), path.get("id")));
    }

    private ApiResponse replaceItem(ApiRequest request, Map<String, String> path) {
        return item(200, store.replaceItem(path.get("container"), RequestHeaders.requiredPartitionKey(request), path.get("id"),
                request.body(), RequestHeaders.precondition(request)));
    }

    private ApiResponse patchItem(ApiRequest request, Map<String, String> path) {
        PartitionKey partitionKey = RequestHeaders.requiredPartitionKey(request);
        return item(200, store.patchItem(path.get("container"), partitionKey, path.get("id"),
                RequestBodies.patchOperations(request.body()), RequestHeaders.precondition(request)));
    }

    private ApiResponse deleteItem(ApiRequest request, Map<String, String> path) {
        store.deleteItem(path.get("container"), RequestHeaders.requiredPartitionKey(request), path.get("id"), RequestHeaders.precondition(request));
        return ApiResponse.empty(204);
    }

    private static ApiResponse item(int status, Item item) {
        return ApiResponse.json(status, item.jsonBytes())
                .withHeader("ETag", item.etag())
                .withHeader(WireFormat.LSN_HEADER, Long.toString(item.lsn()))
                .withHeader(WireFormat.PARTITION_KEY_HEADER, item.partitionKey().toWire());
    }

    // Batches and bulk

    private ApiResponse batch(ApiRequest request, Map<String, String> path) {
        PartitionKey partitionKey = RequestHeaders.requiredPartitionKey(request);
        BatchResult result = store.executeBatch(path.get("container"), partitionKey,
                RequestBodies.batchOperations(request.body()));
        return ApiResponse.json(result.status(), WireFormat.operationResults(result.results()));
    }

    private ApiResponse bulkWrite(ApiRequest request, Map<String, String> path) throws IOException {
        BulkOptions options = new BulkOptions(booleanParameter(request, "upsert"),
                booleanParameter(request, "stopAtFirstFailure"));
        BulkResult result = store.bulkWrite(path.get("container"), lines(request.body()), options);
        return ApiResponse.json(200, StoreJson.mapper().writeValueAsBytes(result));
    }

    private ApiResponse bulkOperations(ApiRequest request, Map<String, String> path) {
        List<BatchResult.OperationResult> results = store.executeBulk(path.get("container"),
                RequestBodies.bulkOperations(request.body()));
        return ApiResponse.json(200, WireFormat.operationResults(results));
    }

    /** NDJSON: one document a line ({@code \n} or {@code \r\n}); empty lines are skipped. */
    private static List<byte[]> lines(byte[] body) {
        List<byte[]> lines = new ArrayList<>();
        int start = 0;
        for (int index = 0; index <= body.length; index++) {
            if (index == body.length || body[index] == '\n') {
                int end = index > start && body[index - 1] == '\r' ? index - 1 : index;
                if (end > start) {
                    lines.add(Arrays.copyOfRange(body, start, end));
                }
                start = index + 1;
            }
        }
        return lines;
    }

    // Pages

    private ApiResponse scan(ApiRequest request, Map<String, String> path) {
        ItemPage page = store.scanItems(path.get("container"), intValue(path.get("logPartition"), "log partition"),
                request.queryParameter("continuation"), pageSize(request, "maxItems"));
        return ApiResponse.json(200, WireFormat.items("items", page.items(), generator -> {
            generator.writeStringField("continuation", page.continuation().orElse(null));
            generator.writeNumberField("logEndLsn", page.logEndLsn());
        }));
    }

    private ApiResponse changeLog(ApiRequest request, Map<String, String> path) {
        String after = request.queryParameter("after").orElse("0");
        long afterLsn;
        try {
            afterLsn = Long.parseLong(after);
        } catch (NumberFormatException e) {
            throw new StoreException(StoreErrorCode.BAD_REQUEST, "Invalid after '" + after
                    + "': an LSN is an integer", e);
        }
        ChangeLogPage page = store.readChangeLog(path.get("container"),
                intValue(path.get("logPartition"), "log partition"), afterLsn, pageSize(request, "maxEvents"));
        return ApiResponse.json(200, WireFormat.changeLogPage(page));
    }

    /** The page size asked for, at most {@code maxPageItems} (also when none is asked for). */
    private int pageSize(ApiRequest request, String parameter) {
        Optional<String> asked = request.queryParameter(parameter);
        return asked.isEmpty() ? maxPageItems : PageSize.capped(asked.get(), parameter, maxPageItems);
    }

    /** The query an extra route sees: its {@code maxItems} lowered to the cap, or set to it when absent. */
    private Map<String, String> cappedQuery(ApiRequest request) {
        Map<String, String> query = new TreeMap<>(request.query());
        String asked = query.get("maxItems");
        query.put("maxItems", Integer.toString(asked == null ? maxPageItems
                : PageSize.capped(asked, "maxItems", maxPageItems)));
        return query;
    }

    // Parameters and headers

    private static boolean booleanParameter(ApiRequest request, String name) {
        Optional<String> value = request.queryParameter(name);
        if (value.isEmpty() || value.get().equals("false")) {
            return false;
        }
        if (value.get().equals("true")) {
            return true;
        }
        throw new StoreException(StoreErrorCode.BAD_REQUEST, "Invalid " + name + " '" + value.get()
                + "': must be true or false");
    }

    private static int intValue(String text, String what) {
        try {
            return Integer.parseInt(text);
        } catch (NumberFormatException e) {
            throw new StoreException(StoreErrorCode.BAD_REQUEST, "Invalid " + what + " '" + text
                    + "': not an integer", e);
        }
    }
}
