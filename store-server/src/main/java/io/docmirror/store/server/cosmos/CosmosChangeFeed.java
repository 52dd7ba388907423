package io.docmirror.store.server.cosmos;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.docmirror.feed.ChangeFeedException;
import io.docmirror.feed.ChangeFeedMode;
import io.docmirror.feed.ChangeFeedPage;
import io.docmirror.feed.ChangeFeedReader;
import io.docmirror.feed.ContinuationToken;
import io.docmirror.feed.FeedRange;
import io.docmirror.feed.StartFrom;
import io.docmirror.store.PartitionKey;
import io.docmirror.store.PartitionKeyValue;
import io.docmirror.store.StoreClient;
import io.docmirror.store.StoreErrorCode;
import io.docmirror.store.StoreException;
import io.docmirror.store.StoreJson;
import io.docmirror.store.changelog.ChangeEvent;
import io.docmirror.store.changelog.Operation;
import io.docmirror.store.internal.JsonPointer;
import io.docmirror.store.server.ApiRequest;
import io.docmirror.store.server.ApiResponse;
import io.docmirror.store.server.RequestHeaders;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * Cosmos DB's change feed over the wire, one partition key range (log partition) per request, as the SDKs' pull model
 * and change feed processor read it: {@code GET .../docs} with {@code A-IM: Incremental Feed} (latest version: each
 * item's newest version once, no deletes) or {@code A-IM: Full-Fidelity Feed} (all versions and deletes, each change
 * as {@code {"current":...,"previous":...,"metadata":{...}}}), the range in {@code x-ms-documentdb-partitionkeyrangeid}
 * (narrowed by {@code x-ms-start-epk}/{@code x-ms-end-epk} or a partition key), and the position in
 * {@code If-None-Match}: absent for the beginning, {@code *} for now, otherwise the ETag of the previous answer (the
 * LSN read up to). {@code If-Modified-Since} starts at a point in time. An answer with changes is 200 with the next
 * position in its ETag; one without is 304 with it. Configured to imitate an account without all versions and
 * deletes ({@code store.http.cosmos-all-versions-and-deletes: false}), a read in that mode is 400 as such an
 * account answers it.
 */
final class CosmosChangeFeed {
    static final String A_IM = "A-IM";
    private static final String INCREMENTAL = "Incremental Feed";
    private static final String FULL_FIDELITY = "Full-Fidelity Feed";

    /** What Cosmos DB answers (400) to a read in all versions and deletes on an account that has not that mode. */
    private static final String ALL_VERSIONS_AND_DELETES_OFF =
            "Change Feed 'All Versions and Deletes' mode must be enabled.";

    private final StoreClient store;
    private final int maxPageItems;
    private final boolean allVersionsAndDeletes;

    /** @param allVersionsAndDeletes false to answer a read in that mode as an account without it does */
    CosmosChangeFeed(StoreClient store, int maxPageItems, boolean allVersionsAndDeletes) {
        this.store = requireNonNull(store, "store is null");
        this.maxPageItems = maxPageItems;
        this.allVersionsAndDeletes = allVersionsAndDeletes;
    }

    ApiResponse read(ApiRequest request, CosmosContainers.Resolved container) {
        String storeId = container.properties().id();
        ChangeFeedMode mode = mode(request.header(A_IM).orElse(""));
        if (mode == ChangeFeedMode.ALL_VERSIONS_AND_DELETES && !allVersionsAndDeletes) {
            throw new StoreException(StoreErrorCode.BAD_REQUEST, ALL_VERSIONS_AND_DELETES_OFF);
        }
        int range = range(request, container);
        Optional<PartitionKey> partitionKey = RequestHeaders.partitionKey(request);
        int maxItems = CosmosFeedHeaders.maxItems(request, maxPageItems);
        ChangeFeedPage page;
        try {
            page = ChangeFeedReader.open(store, new FeedRange(storeId, range), mode, start(request, storeId, range))
                    .readNext(maxItems, event -> inRange(request, event, partitionKey));
        } catch (ChangeFeedException e) {
            throw new StoreException(e.code(), e.getMessage(), e);
        }
        String etag = "\"" + ContinuationToken.decode(page.continuation()).positions().get(range) + "\"";
        if (page.events().isEmpty()) {
            return ApiResponse.empty(304).withHeader("etag", etag);
        }
        return ApiResponse.json(200, body(container, page.events(), mode))
                .withHeader("etag", etag)
                .withHeader("x-ms-item-count", Integer.toString(page.events().size()));
    }

    private static ChangeFeedMode mode(String header) {
        if (header.equalsIgnoreCase(INCREMENTAL)) {
            return ChangeFeedMode.LATEST_VERSION;
        }
        if (header.equalsIgnoreCase(FULL_FIDELITY)) {
            return ChangeFeedMode.ALL_VERSIONS_AND_DELETES;
        }
        throw new StoreException(StoreErrorCode.BAD_REQUEST, "Invalid header " + A_IM + " '" + header + "': the change "
                + "feed is '" + INCREMENTAL + "' (latest version) or '" + FULL_FIDELITY
                + "' (all versions and deletes)");
    }

    /** The partition key range read: the header's, else the partition key's, else the only one. */
    private static int range(ApiRequest request, CosmosContainers.Resolved container) {
        Optional<Integer> asked = CosmosFeedHeaders.range(request, container);
        if (asked.isPresent()) {
            return asked.get();
        }
        Optional<PartitionKey> partitionKey = RequestHeaders.partitionKey(request);
        if (partitionKey.isPresent()) {
            return container.properties().logPartitionOf(partitionKey.get());
        }
        int ranges = container.properties().logPartitions();
        if (ranges == 1) {
            return 0;
        }
        throw new StoreException(StoreErrorCode.BAD_REQUEST, "Cannot read the change feed of container "
                + container.properties().id() + ": name a partition key range (" + CosmosFeedHeaders.RANGE
                + ", 0 to " + (ranges - 1) + ") or a partition key");
    }

    /**
     * Where to start: the beginning (or the point in time {@code If-Modified-Since} names), now ({@code *}), or the
     * position an earlier answer gave as its ETag, the LSN read up to in the range, as a continuation token holds it.
     */
    private static StartFrom start(ApiRequest request, String storeId, int range) {
        Optional<String> ifNoneMatch = request.header("If-None-Match");
        if (ifNoneMatch.isEmpty()) {
            return request.header("If-Modified-Since").map(date -> StartFrom.pointInTime(instant(date)))
                    .orElseGet(StartFrom::beginning);
        }
        String token = ifNoneMatch.get().replace("\"", "");
        if (token.equals("*")) {
            return StartFrom.now();
        }
        if (!token.matches("[0-9]{1,18}")) {
            throw new StoreException(StoreErrorCode.BAD_REQUEST, "Invalid header If-None-Match '" + ifNoneMatch.get()
                    + "': a change feed position is '*' (now) or the ETag of an earlier answer");
        }
        return StartFrom.continuation(new ContinuationToken(storeId, Map.of(range, Long.parseLong(token))).encode());
    }

    private static Instant instant(String httpDate) {
        try {
            return ZonedDateTime.parse(httpDate, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
        } catch (DateTimeParseException e) {
            throw new StoreException(StoreErrorCode.BAD_REQUEST, "Invalid header If-Modified-Since '" + httpDate
                    + "': an RFC 1123 date", e);
        }
    }

    private static boolean inRange(ApiRequest request, ChangeEvent event, Optional<PartitionKey> partitionKey) {
        PartitionKey key = event.partitionKey().toPartitionKey();
        return (partitionKey.isEmpty() || partitionKey.get().equals(key)) && CosmosFeedHeaders.inEpkRange(request, key);
    }

    /** {@code {"_rid":...,"Documents":[...],"_count":n}}, each document as stored (numbers as written). */
    private static byte[] body(CosmosContainers.Resolved container, List<ChangeEvent> changes, ChangeFeedMode mode) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(("{\"_rid\":\"" + container.resourceId() + "\",\"Documents\":[")
                .getBytes(StandardCharsets.UTF_8));
        for (int index = 0; index < changes.size(); index++) {
            if (index > 0) {
                out.write(',');
            }
            ChangeEvent change = changes.get(index);
            if (mode == ChangeFeedMode.LATEST_VERSION) {
                out.writeBytes(change.documentJson().orElseThrow());
            }
            else {
                writeFullFidelity(out, container, change);
            }
        }
        out.writeBytes(("],\"_count\":" + changes.size() + "}").getBytes(StandardCharsets.UTF_8));
        return out.toByteArray();
    }

    /** One change of all versions and deletes: {@code {"current":...,"previous":...,"metadata":{...}}}. */
    private static void writeFullFidelity(ByteArrayOutputStream out, CosmosContainers.Resolved container,
            ChangeEvent change) {
        out.write('{');
        if (change.documentJson().isPresent()) {
            out.writeBytes("\"current\":".getBytes(StandardCharsets.UTF_8));
            out.writeBytes(change.documentJson().get());
            out.write(',');
        }
        if (change.previousJson().isPresent()) {
            out.writeBytes("\"previous\":".getBytes(StandardCharsets.UTF_8));
            out.writeBytes(change.previousJson().get());
            out.write(',');
        }
        ObjectNode metadata = StoreJson.mapper().createObjectNode();
        metadata.put("operationType", switch (change.operation()) {
            case CREATE -> "create";
            case REPLACE -> "replace";
            case DELETE -> "delete";
        });
        metadata.put("lsn", change.lsn()).put("crts", change.ts() / 1000);
        change.previous().map(previous -> previous.path("_lsn")).filter(JsonNode::isNumber)
                .ifPresent(lsn -> metadata.put("previousImageLSN", lsn.longValue()));
        metadata.put("timeToLiveExpired", change.ttlExpired());
        if (change.operation() == Operation.DELETE) {
            metadata.put("id", change.id());
            metadata.set("partitionKey", partitionKeyObject(container.properties().partitionKeyPath(),
                    change.partitionKey()));
        }
        out.writeBytes("\"metadata\":".getBytes(StandardCharsets.UTF_8));
        out.writeBytes(metadata.toString().getBytes(StandardCharsets.UTF_8));
        out.write('}');
    }

    /** A deleted item's partition key as Cosmos DB gives it: the value at its path, {@code {"customerId":"c1"}}. */
    private static ObjectNode partitionKeyObject(String path, PartitionKeyValue value) {
        ObjectNode root = StoreJson.mapper().createObjectNode();
        List<String> segments = JsonPointer.parse(path);
        ObjectNode parent = root;
        for (String segment : segments.subList(0, segments.size() - 1)) {
            parent = parent.putObject(segment);
        }
        if (!value.equals(PartitionKeyValue.NONE)) {
            parent.set(segments.get(segments.size() - 1), value.toJson());
        }
        return root;
    }
}
