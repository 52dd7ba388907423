package io.docmirror.store.server.cosmos;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.docmirror.store.BatchOperation;
import io.docmirror.store.BulkOperation;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.PartitionKey;
import io.docmirror.store.PatchOperation;
import io.docmirror.store.StoreErrorCode;
import io.docmirror.store.StoreException;
import io.docmirror.store.StoreJson;
import io.docmirror.store.server.ApiRequest;
import io.docmirror.store.server.ApiResponse;
import io.docmirror.store.server.RequestBodies;
import io.netty.handler.codec.http.HttpResponseStatus;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The JSON shapes of Cosmos DB's REST protocol that the store reads and writes: resources (databases, containers)
 * with their system properties, feeds, errors ({@code {"code":"NotFound","message":"..."}}), patch bodies and
 * transactional batches.
 */
final class CosmosWire {
    private static final byte[] RID_FIELD = "\"_rid\":\"".getBytes(StandardCharsets.US_ASCII);
    private static final Set<String> BATCH_FIELDS = Set.of("operationType", "id", "resourceBody", "ifMatch",
            "ifNoneMatch", "partitionKey", "minimalReturnPreference");
    private static final Map<String, BatchOperation.Type> BATCH_TYPES = Map.of(
            "Create", BatchOperation.Type.CREATE, "Upsert", BatchOperation.Type.UPSERT,
            "Replace", BatchOperation.Type.REPLACE, "Read", BatchOperation.Type.READ,
            "Delete", BatchOperation.Type.DELETE, "Patch", BatchOperation.Type.PATCH);

    private CosmosWire() {
    }

    static ApiResponse json(int status, JsonNode body) {
        try {
            return ApiResponse.json(status, StoreJson.mapper().writeValueAsBytes(body));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("Cannot write a JSON tree", e);
        }
    }

    /** Cosmos DB's error body: the status's name as the code ({@code NotFound}) and the message. */
    static byte[] error(int status, String message) {
        ObjectNode body = StoreJson.mapper().createObjectNode();
        body.put("code", HttpResponseStatus.valueOf(status).reasonPhrase().replace(" ", ""));
        body.put("message", message);
        return body.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** A feed: {@code {"_rid":"...","<field>":[...],"_count":n}} with {@code x-ms-item-count}. */
    static ApiResponse feed(ApiRequest request, String resourceId, String field, List<JsonNode> resources) {
        ObjectNode body = StoreJson.mapper().createObjectNode();
        body.put("_rid", resourceId);
        body.putArray(field).addAll(resources);
        body.put("_count", resources.size());
        return json(200, body).withHeader("x-ms-item-count", Integer.toString(resources.size()));
    }

    static JsonNode database(CosmosDatabases.Database database) {
        return StoreJson.mapper().createObjectNode()
                .put("id", database.id())
                .put("_rid", database.resourceId())
                .put("_self", "dbs/" + database.resourceId() + "/")
                .put("_etag", database.etag())
                .put("_colls", "colls/")
                .put("_users", "users/")
                .put("_ts", database.ts());
    }

    /** A container as Cosmos DB describes it; the partition key is always hash version 2, as the store hashes it. */
    static JsonNode container(CosmosDatabases.Database database, ContainerProperties properties) {
        CosmosContainers.Resolved container = new CosmosContainers.Resolved(database, properties);
        ObjectNode node = StoreJson.mapper().createObjectNode();
        node.put("id", container.id());
        ObjectNode indexing = node.putObject("indexingPolicy");
        indexing.put("indexingMode", "consistent").put("automatic", true);
        indexing.putArray("includedPaths").addObject().put("path", "/*");
        indexing.putArray("excludedPaths").addObject().put("path", "/\"_etag\"/?");
        ObjectNode partitionKey = node.putObject("partitionKey");
        partitionKey.putArray("paths").add(properties.partitionKeyPath());
        partitionKey.put("kind", "Hash").put("version", 2);
        if (properties.defaultTtl() != null) {
            node.put("defaultTtl", properties.defaultTtl());
        }
        if (properties.analyticalTtl() != null) {
            node.put("analyticalStorageTtl", properties.analyticalTtl());
        }
        node.putObject("conflictResolutionPolicy").put("mode", "LastWriterWins")
                .put("conflictResolutionPath", "/_ts").put("conflictResolutionProcedure", "");
        node.put("_rid", container.resourceId())
                .put("_ts", 0)
                .put("_self", container.selfLink())
                .put("_etag", properties.etag())
                .put("_docs", "docs/")
                .put("_sprocs", "sprocs/")
                .put("_triggers", "triggers/")
                .put("_udfs", "udfs/")
                .put("_conflicts", "conflicts/");
        return node;
    }

    /**
     * A patch body: {@code {"operations":[...]}}, as the Java and .NET SDKs send it, or the bare array of operations
     * the JavaScript SDK sends. A {@code condition} (a query filter) is not supported yet.
     */
    static List<PatchOperation> patchOperations(byte[] body) {
        String context = "Cannot patch item";
        JsonNode node = RequestBodies.parse(body);
        if (node.isArray()) {
            return RequestBodies.patchOperations(node, context);
        }
        if (!node.isObject()) {
            throw new StoreException(StoreErrorCode.BAD_REQUEST, context + ": the body must be a JSON object such "
                    + "as {\"operations\":[...]} or a JSON array of operations");
        }
        if (node.has("condition")) {
            throw new StoreException(StoreErrorCode.BAD_REQUEST, context + ": a conditional patch "
                    + "('condition', a query filter) is not supported yet");
        }
        return RequestBodies.patchOperations(RequestBodies.operationsArray(node, context), context);
    }

    /**
     * A stored item as Cosmos DB answers it, with the links Cosmos DB adds to every item: {@code _self} (the Python
     * SDK keeps its session tokens by it) and {@code _attachments}. The store appends its system properties, its
     * {@code _rid} among them, after the document's own, so the last {@code "_rid":"} is the item's; the links are
     * spliced in before the closing brace, in the item's bytes, rather than by parsing it again.
     */
    static byte[] withLinks(byte[] item, CosmosContainers.Resolved container) {
        int ridStart = lastIndexOf(item, RID_FIELD) + RID_FIELD.length;
        int ridEnd = ridStart;
        while (ridEnd < item.length && item[ridEnd] != '"') {
            ridEnd++;
        }
        int close = item.length - 1;
        while (close > ridEnd && item[close] != '}') {
            close--;
        }
        if (ridStart < RID_FIELD.length || close <= ridEnd) {
            throw new IllegalStateException("A stored item without its _rid: " + new String(item,
                    StandardCharsets.UTF_8));
        }
        byte[] links = (",\"_self\":\"" + container.selfLink() + "docs/"
                + new String(item, ridStart, ridEnd - ridStart, StandardCharsets.UTF_8)
                + "/\",\"_attachments\":\"attachments/\"").getBytes(StandardCharsets.UTF_8);
        byte[] answer = new byte[item.length + links.length];
        System.arraycopy(item, 0, answer, 0, close);
        System.arraycopy(links, 0, answer, close, links.length);
        System.arraycopy(item, close, answer, close + links.length, item.length - close);
        return answer;
    }

    private static int lastIndexOf(byte[] bytes, byte[] pattern) {
        for (int start = bytes.length - pattern.length; start >= 0; start--) {
            if (Arrays.equals(bytes, start, start + pattern.length, pattern, 0, pattern.length)) {
                return start;
            }
        }
        return -1;
    }

    /** A transactional batch's body: a JSON array of {@code {"operationType":"Create","resourceBody":{...}}, ...}. */
    static List<BatchOperation> batchOperations(byte[] body) {
        List<BatchOperation> operations = new ArrayList<>();
        readOperations(body, "Cannot run batch", (node, operation, context) -> operations.add(operation));
        return operations;
    }

    /**
     * A bulk request's body (a batch that is not atomic): the same operations, each naming its own partition key
     * value as a JSON array in a string, {@code "partitionKey":"[\"c1\"]"}.
     */
    static List<BulkOperation> bulkOperations(byte[] body) {
        List<BulkOperation> operations = new ArrayList<>();
        readOperations(body, "Cannot run bulk operations", (node, operation, context) -> {
            JsonNode partitionKey = node.get("partitionKey");
            if (partitionKey == null || !partitionKey.isTextual()) {
                throw new StoreException(StoreErrorCode.BAD_REQUEST, context + ": 'partitionKey' must be a string "
                        + "holding the partition key value as a JSON array, e.g. \"[\\\"c1\\\"]\"");
            }
            try {
                operations.add(new BulkOperation(PartitionKey.fromWire(partitionKey.textValue()), operation));
            } catch (IllegalArgumentException e) {
                throw new StoreException(StoreErrorCode.BAD_REQUEST, context + ": " + e.getMessage(), e);
            }
        });
        return operations;
    }

    private interface OperationReader {
        void read(JsonNode node, BatchOperation operation, String context);
    }

    private static void readOperations(byte[] body, String action, OperationReader reader) {
        JsonNode array = RequestBodies.parse(body);
        if (!array.isArray()) {
            throw new StoreException(StoreErrorCode.BAD_REQUEST, action + ": the body must be a JSON array of "
                    + "operations, e.g. [{\"operationType\":\"Read\",\"id\":\"o1\"}]");
        }
        int index = 0;
        for (JsonNode node : array) {
            index++;
            String context = action + ": operation " + index;
            if (!node.isObject()) {
                throw new StoreException(StoreErrorCode.BAD_REQUEST, context + " must be an object");
            }
            node.fieldNames().forEachRemaining(field -> {
                if (!BATCH_FIELDS.contains(field)) {
                    throw new StoreException(StoreErrorCode.BAD_REQUEST, context + ": unknown field '" + field
                            + "'; an operation has " + String.join(", ", BATCH_FIELDS.stream().sorted().toList()));
                }
            });
            if (node.hasNonNull("ifNoneMatch")) {
                throw new StoreException(StoreErrorCode.BAD_REQUEST, context + ": 'ifNoneMatch' is not supported");
            }
            BatchOperation.Type type = BATCH_TYPES.get(requiredString(node, "operationType", context));
            if (type == null) {
                throw new StoreException(StoreErrorCode.BAD_REQUEST, context + ": 'operationType' must be one of "
                        + String.join(", ", BATCH_TYPES.keySet().stream().sorted().toList()));
            }
            reader.read(node, batchOperation(type, node, context), context);
        }
    }

    private static BatchOperation batchOperation(BatchOperation.Type type, JsonNode node, String context) {
        JsonNode resource = node.get("resourceBody");
        boolean needsDocument = type == BatchOperation.Type.CREATE || type == BatchOperation.Type.UPSERT
                || type == BatchOperation.Type.REPLACE;
        if ((needsDocument || type == BatchOperation.Type.PATCH) && (resource == null || !resource.isObject())) {
            throw new StoreException(StoreErrorCode.BAD_REQUEST, context + ": 'resourceBody' must be an object");
        }
        String id = type == BatchOperation.Type.CREATE || type == BatchOperation.Type.UPSERT
                ? null : requiredString(node, "id", context);
        String document = needsDocument ? writeExactly(resource) : null;
        List<PatchOperation> patch = type == BatchOperation.Type.PATCH
                ? patchOperations(writeExactly(resource).getBytes(StandardCharsets.UTF_8)) : null;
        String ifMatch = node.hasNonNull("ifMatch") ? requiredString(node, "ifMatch", context) : null;
        return new BatchOperation(type, id, document, patch, ifMatch);
    }

    /** The tree as JSON text, its numbers as they were written. */
    private static String writeExactly(JsonNode node) {
        try {
            return StoreJson.mapper().writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("Cannot write a JSON tree", e);
        }
    }

    static JsonNode object(byte[] body, String context) {
        JsonNode node = RequestBodies.parse(body);
        if (!node.isObject()) {
            throw new StoreException(StoreErrorCode.BAD_REQUEST, context + ": the body must be a JSON object");
        }
        return node;
    }

    static String requiredString(JsonNode node, String field, String context) {
        JsonNode value = node.get(field);
        if (value == null || !value.isTextual()) {
            throw new StoreException(StoreErrorCode.BAD_REQUEST, context + ": '" + field + "' must be a string");
        }
        return value.textValue();
    }

    /** An integer property, or null when absent or null. */
    static Integer optionalInt(JsonNode node, String field, String context) {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isIntegralNumber() || !value.canConvertToInt()) {
            throw new StoreException(StoreErrorCode.BAD_REQUEST, context + ": '" + field
                    + "' must be an integer number of seconds (or -1)");
        }
        return value.intValue();
    }
}
