package io.docmirror.store.server.cosmos;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.docmirror.query.NoSqlQuery;
import io.docmirror.query.PageBudget;
import io.docmirror.query.QueryException;
import io.docmirror.query.QueryPage;
import io.docmirror.store.EffectivePartitionKey;
import io.docmirror.store.Item;
import io.docmirror.store.ItemPage;
import io.docmirror.store.PartitionKey;
import io.docmirror.store.StoreClient;
import io.docmirror.store.StoreErrorCode;
import io.docmirror.store.StoreException;
import io.docmirror.store.StoreJson;
import io.docmirror.store.internal.JsonPointer;
import io.docmirror.store.internal.StoredItem;
import io.docmirror.store.server.ApiRequest;
import io.docmirror.store.server.ApiResponse;
import io.docmirror.store.server.RequestBodies;
import io.docmirror.store.server.RequestHeaders;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static java.util.Objects.requireNonNull;

/**
 * Queries over the Cosmos DB routes ({@code POST .../docs} with {@code x-ms-documentdb-isquery: True}), run by the
 * {@code nosql-query} module. A query-plan request ({@code x-ms-cosmos-is-query-plan-request: True}) answers the plan
 * the SDKs merge partition key ranges by; a query answers one page of results over the documents it is asked about:
 * one logical partition ({@code x-ms-documentdb-partitionkey}), one partition key range
 * ({@code x-ms-documentdb-partitionkeyrangeid}, a log partition, narrowed by {@code x-ms-start-epk} and
 * {@code x-ms-end-epk}), or else the whole container. Pages hold at most {@code x-ms-max-item-count} results (capped
 * by the server's page size), with {@code x-ms-continuation} for the next page; every number is written as stored.
 */
final class CosmosQueries {
    private static final String IS_QUERY = "x-ms-documentdb-isquery";
    private static final String IS_QUERY_PLAN = "x-ms-cosmos-is-query-plan-request";
    private static final String CONTINUATION_HEADER = "x-ms-continuation";
    /**
     * Tells the SDKs that rows whose ORDER BY values tie come in ascending {@code _rid} order, whichever the direction
     * (without it the Java SDK expects descending ones under a descending ORDER BY).
     */
    private static final String EXECUTION_INFO_HEADER = "x-ms-cosmos-query-execution-info";
    private static final String ASCENDING_RESOURCE_IDS = "{\"reverseRidEnabled\":false,\"reverseIndexScan\":false}";
    /** How many items one read of a log partition's scan holds while a query runs over it. */
    private static final int SCAN_BATCH = 500;

    private static final NoSqlQuery EVERY_ITEM = NoSqlQuery.parse("SELECT * FROM c");

    private final StoreClient store;
    private final int maxPageItems;
    private final long maxRowsPerPage;
    private final Duration maxPageTime;

    /**
     * @param maxPageItems the most results one page holds, whatever the request asks for
     * @param maxRowsPerPage the most rows one page may make ({@link PageBudget})
     * @param maxPageTime the most time one page may take
     */
    CosmosQueries(StoreClient store, int maxPageItems, long maxRowsPerPage, Duration maxPageTime) {
        this.store = requireNonNull(store, "store is null");
        this.maxPageItems = maxPageItems;
        this.maxRowsPerPage = maxRowsPerPage;
        this.maxPageTime = requireNonNull(maxPageTime, "maxPageTime is null");
    }

    /** Whether a POST to the documents resource is a query (or a query-plan request) rather than a write. */
    static boolean isQuery(ApiRequest request) {
        return RequestHeaders.flag(request, IS_QUERY) || RequestHeaders.flag(request, IS_QUERY_PLAN)
                || request.header("Content-Type")
                        .filter(type -> type.toLowerCase(Locale.ROOT).startsWith("application/query+json"))
                        .isPresent();
    }

    ApiResponse answer(ApiRequest request, CosmosContainers.Resolved container) {
        JsonNode body = RequestBodies.parse(request.body());
        try {
            NoSqlQuery query = NoSqlQuery.parseRequest(body);
            if (RequestHeaders.flag(request, IS_QUERY_PLAN)) {
                return CosmosWire.json(200, plan(query, container));
            }
            return page(request, container, query);
        } catch (QueryException e) {
            throw new StoreException(StoreErrorCode.BAD_REQUEST, e.getMessage(), e);
        }
    }

    /**
     * A read feed ({@code GET .../docs} without {@code A-IM}): every item the headers name, as {@code SELECT * FROM c}
     * gives them, a page at a time.
     */
    ApiResponse readFeed(ApiRequest request, CosmosContainers.Resolved container) {
        try {
            return page(request, container, EVERY_ITEM);
        } catch (QueryException e) {
            throw new StoreException(StoreErrorCode.BAD_REQUEST, e.getMessage(), e); // a continuation no page gave
        }
    }

    /**
     * The query plan; for a query whose filter requires one partition key value, its {@code queryRanges} are that
     * value's effective partition key alone, so that the SDKs ask only the range that holds it.
     */
    private static ObjectNode plan(NoSqlQuery query, CosmosContainers.Resolved container) {
        ObjectNode plan = query.plan().toJson();
        List<String> path = JsonPointer.parse(container.properties().partitionKeyPath());
        Optional<String> epk = query.requiredValue(path).flatMap(CosmosQueries::effectivePartitionKey);
        if (epk.isPresent()) {
            plan.putArray("queryRanges").addObject().put("min", epk.get()).put("max", epk.get())
                    .put("isMinInclusive", true).put("isMaxInclusive", true);
        }
        return plan;
    }

    /** A value's effective partition key; empty for one that no partition key has (an array, an object). */
    private static Optional<String> effectivePartitionKey(JsonNode value) {
        try {
            return Optional.of(EffectivePartitionKey.of(PartitionKey.fromJson(value)).toHex());
        } catch (IllegalArgumentException e) {
            return Optional.empty(); // the query runs over every range, where no document matches
        }
    }

    private ApiResponse page(ApiRequest request, CosmosContainers.Resolved container, NoSqlQuery query) {
        // Read once, a scan batch at a time: the query holds what its page needs, never the whole range.
        Iterable<ObjectNode> documents = items(request, container).map(Item::tree)::iterator;
        // The SDKs send an empty continuation for a query's first page.
        String continuation = request.header(CONTINUATION_HEADER).filter(token -> !token.isBlank()).orElse(null);
        // Rows whose sort values tie come in the order the documents were created: that of their _rid, as the SDKs
        // expect.
        QueryPage page = query.page(documents, CosmosQueries::documentNumber, continuation,
                CosmosFeedHeaders.maxItems(request, maxPageItems),
                new PageBudget(maxRowsPerPage, maxPageTime, System::nanoTime, request::clientGone));
        ObjectNode answer = StoreJson.mapper().createObjectNode();
        answer.put("_rid", container.resourceId());
        ArrayNode results = answer.putArray("Documents");
        for (JsonNode result : page.results()) {
            results.add(query.hasOrderBy() ? withCosmosResourceId(container, result) : result);
        }
        answer.put("_count", page.results().size());
        ApiResponse response;
        try {
            response = ApiResponse.json(200, StoreJson.mapper().writeValueAsBytes(answer));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("Cannot write a query's results", e);
        }
        response = response.withHeader("x-ms-item-count", Integer.toString(page.results().size()))
                .withHeader(EXECUTION_INFO_HEADER, ASCENDING_RESOURCE_IDS);
        if (page.continuation().isPresent()) {
            response = response.withHeader(CONTINUATION_HEADER, page.continuation().get());
        }
        return response;
    }

    /**
     * A row of a query the SDKs rewrote for ORDER BY ({@code {"_rid":..,"orderByItems":[..],"payload":..}}) with its
     * {@code _rid} in Cosmos DB's form: an SDK that goes on from a continuation parses it and, among rows whose sort
     * values tie, skips those whose document number is below the one it stopped at. The payload is left as stored.
     */
    private static JsonNode withCosmosResourceId(CosmosContainers.Resolved container, JsonNode row) {
        if (!(row instanceof ObjectNode object) || !object.path("_rid").isTextual() || !object.has("orderByItems")
                || object.size() > 3 || object.size() == 3 && !object.has("payload")) {
            return row;
        }
        ObjectNode copy = object.deepCopy();
        copy.put("_rid", CosmosResourceIds.document(container.resourceId(), documentNumber(object)));
        return copy;
    }

    /** A stored item's number within its log partition, the LSN that created it, from its {@code _rid}. */
    private static long documentNumber(JsonNode document) {
        return StoredItem.createdLsnOfRid(document.get("_rid").textValue());
    }

    /**
     * The items the query runs over, in an order that is the same for every page: a logical partition's in id order,
     * a log partition's in its scan's order.
     */
    private Stream<Item> items(ApiRequest request, CosmosContainers.Resolved container) {
        String storeId = container.properties().id();
        Optional<PartitionKey> partitionKey = RequestHeaders.partitionKey(request);
        if (partitionKey.isPresent()) {
            return store.readPartition(storeId, partitionKey.get()).stream();
        }
        List<Integer> logPartitions = CosmosFeedHeaders.range(request, container).map(List::of)
                .orElseGet(() -> IntStream.range(0, container.properties().logPartitions()).boxed().toList());
        return scan(storeId, logPartitions)
                .filter(item -> CosmosFeedHeaders.inEpkRange(request, item.partitionKey()));
    }

    /**
     * The log partitions' items, one after the other, read a batch at a time as the query asks for them. (A flatMap
     * over the partitions would not do: a stream's iterator reads what a flatMap maps an element to all at once, so a
     * whole partition.)
     */
    private Stream<Item> scan(String storeId, List<Integer> logPartitions) {
        record Batch(int partitionIndex, ItemPage page) {
        }
        return Stream.iterate(new Batch(0, store.scanItems(storeId, logPartitions.get(0), Optional.empty(), SCAN_BATCH)),
                        batch -> batch != null,
                        batch -> {
                            if (batch.page().continuation().isPresent()) {
                                return new Batch(batch.partitionIndex(), store.scanItems(storeId,
                                        logPartitions.get(batch.partitionIndex()), batch.page().continuation(),
                                        SCAN_BATCH));
                            }
                            int next = batch.partitionIndex() + 1;
                            return next == logPartitions.size() ? null : new Batch(next,
                                    store.scanItems(storeId, logPartitions.get(next), Optional.empty(), SCAN_BATCH));
                        })
                .flatMap(batch -> batch.page().items().stream());
    }

}
