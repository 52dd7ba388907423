package io.docmirror.store.server;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.docmirror.store.BatchOperation;
import io.docmirror.store.BulkOperation;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.PartitionKey;
import io.docmirror.store.PatchOperation;
import io.docmirror.store.StoreErrorCode;
import io.docmirror.store.StoreException;
import io.docmirror.store.StoreJson;
import io.docmirror.store.http.WireFormat;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * The JSON request bodies of the API (docs/http-api.md), read strictly: a body of the wrong shape, a property of
 * the wrong JSON type, a missing or an unknown property is a 400 whose message names the property and the rule, so
 * nothing malformed reaches the store (where a missing field would be a null it does not expect) and nothing is
 * read as something else ({@code "analyticalTtl":"x"} is not 0).
 */
public final class RequestBodies {
    private static final Set<String> CONTAINER_PROPERTIES =
            Set.of("id", "partitionKeyPath", "defaultTtl", "analyticalTtl", "logPartitions", "_rid", "_etag",
                    "partitionHashing");
    private static final Set<String> PATCH_FIELDS = Set.of("op", "path", "from", "value");
    /** The fields of a batch operation, in the order messages list them; a bulk operation has partitionKey too. */
    private static final List<String> OPERATION_FIELDS = List.of("type", "id", "document", "patch", "ifMatch");

    private RequestBodies() {
    }

    /** {@code {"id":"orders","partitionKeyPath":"/customerId","defaultTtl":3600,"analyticalTtl":-1,"logPartitions":4}} */
    public static ContainerProperties containerProperties(byte[] body) {
        return containerProperties(body, "Cannot create container", null);
    }

    /**
     * The settings a replace of {@code current} asks for: the properties of a creation, where {@code logPartitions}
     * and {@code partitionHashing}, which cannot change, may be left out (they are then the container's).
     */
    public static ContainerProperties containerReplacement(byte[] body, ContainerProperties current) {
        return containerProperties(body, "Cannot replace container " + current.id(), current);
    }

    private static ContainerProperties containerProperties(byte[] body, String action, ContainerProperties current) {
        String context = action;
        JsonNode node = object(parse(body), context, "the body",
                "{\"id\":\"orders\",\"partitionKeyPath\":\"/customerId\"}");
        onlyKnownFields(node, CONTAINER_PROPERTIES, context, "a container's properties are id, partitionKeyPath, "
                + "defaultTtl, analyticalTtl, logPartitions and partitionHashing ('_rid' and '_etag' are ignored)");
        String id = requiredString(node, "id", context);
        String path = requiredString(node, "partitionKeyPath", context);
        context = current == null ? action + " " + id : action;
        Integer logPartitions = optionalInt(node, "logPartitions", context, "1 to "
                + ContainerProperties.MAX_LOG_PARTITIONS);
        ContainerProperties.PartitionHashing hashing = partitionHashing(optionalString(node, "partitionHashing",
                context), context);
        if (current != null) {
            logPartitions = logPartitions == null ? current.logPartitions() : logPartitions;
            hashing = node.hasNonNull("partitionHashing") ? hashing : current.partitionHashing();
        }
        return new ContainerProperties(id, path,
                optionalInt(node, "defaultTtl", context, "seconds: -1, or a positive number; absent for no TTL"),
                optionalInt(node, "analyticalTtl", context, "seconds: -1, 0, or a positive number"),
                Optional.ofNullable(logPartitions).orElse(ContainerProperties.DEFAULT_LOG_PARTITIONS))
                .withPartitionHashing(hashing);
    }

    private static ContainerProperties.PartitionHashing partitionHashing(String name, String context) {
        try {
            return name == null ? null : ContainerProperties.PartitionHashing.fromWireName(name);
        } catch (IllegalArgumentException e) {
            throw new StoreException(StoreErrorCode.BAD_REQUEST,
                    context + ": 'partitionHashing' is an " + e.getMessage(), e);
        }
    }

    /** A transactional batch: {@code {"operations":[{"type":"create","document":"{...}"}, ...]}}. */
    public static List<BatchOperation> batchOperations(byte[] body) {
        List<BatchOperation> operations = new ArrayList<>();
        int index = 0;
        for (JsonNode node : operationsArray(parse(body), "Cannot run batch")) {
            index++;
            String context = "Cannot run batch: operation " + index;
            onlyKnownFields(object(node, context, "it", "{\"type\":\"read\",\"id\":\"o1\"}"),
                    Set.copyOf(OPERATION_FIELDS), context, "an operation has type, id, document, patch and ifMatch");
            operations.add(batchOperation(node, context));
        }
        return operations;
    }

    /**
     * Bulk operations: {@code {"operations":[{"partitionKey":"c1","type":"replace","id":"o1","document":"{...}"}]}},
     * each a batch operation with the partition key value it is for ({@code {}} for none).
     */
    public static List<BulkOperation> bulkOperations(byte[] body) {
        List<BulkOperation> operations = new ArrayList<>();
        int index = 0;
        for (JsonNode node : operationsArray(parse(body), "Cannot run bulk operations")) {
            index++;
            String context = "Bulk operation " + index;
            object(node, context, "it", "{\"partitionKey\":\"c1\",\"type\":\"read\",\"id\":\"o1\"}");
            if (!node.has("partitionKey")) {
                throw badRequest("Bulk operation " + index + " has no partitionKey; every bulk operation is an object "
                        + "that names the partition key value it is for");
            }
            Set<String> fields = new HashSet<>(OPERATION_FIELDS);
            fields.add("partitionKey");
            onlyKnownFields(node, fields, context, "an operation has partitionKey, type, id, document, patch and ifMatch");
            operations.add(new BulkOperation(partitionKey(node.get("partitionKey"), context),
                    batchOperation(node, context)));
        }
        return operations;
    }

    /** A patch: {@code {"operations":[{"op":"set","path":"/status","value":"paid"}, ...]}}. */
    public static List<PatchOperation> patchOperations(byte[] body) {
        return patchOperations(operationsArray(parse(body), "Cannot patch item"), "Cannot patch item");
    }

    public static JsonNode parse(byte[] body) {
        JsonNode node;
        try {
            node = StoreJson.mapper().readTree(body);
        } catch (JsonProcessingException e) {
            String where = e.getLocation() == null ? ""
                    : " (line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr() + ")";
            throw new StoreException(StoreErrorCode.BAD_REQUEST,
                    "Request body is not valid JSON: " + e.getOriginalMessage() + where, e);
        } catch (IOException e) {
            throw new StoreException(StoreErrorCode.BAD_REQUEST, "Request body cannot be read: " + e.getMessage(), e);
        }
        if (node == null || node.isMissingNode()) {
            throw badRequest("Request body is empty; a JSON object is needed");
        }
        return node;
    }

    private static BatchOperation batchOperation(JsonNode node, String context) {
        BatchOperation.Type type = operationType(node, context);
        context = context + " (" + type.wireName() + ")";
        Set<String> allowed = fieldsOf(type);
        for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!allowed.contains(name) && !name.equals("partitionKey")) {
                throw badRequest(context + " takes no '" + name + "'; a " + type.wireName() + " has "
                        + String.join(", ", OPERATION_FIELDS.stream().filter(allowed::contains).toList()));
            }
        }
        String id = allowed.contains("id") ? requiredString(node, "id", context) : null;
        String document = allowed.contains("document") ? requiredString(node, "document", context) : null;
        List<PatchOperation> patch = null;
        if (type == BatchOperation.Type.PATCH) {
            JsonNode operations = node.get("patch");
            if (operations == null || !operations.isArray()) {
                throw badRequest(context + ": 'patch' must be an array of patch operations such as "
                        + "[{\"op\":\"set\",\"path\":\"/status\",\"value\":\"paid\"}], not " + describe(operations));
            }
            patch = patchOperations(operations, context);
        }
        String ifMatch = optionalString(node, "ifMatch", context);
        return new BatchOperation(type, id, document, patch, ifMatch);
    }

    /** The fields each kind of batch operation takes. */
    private static Set<String> fieldsOf(BatchOperation.Type type) {
        return switch (type) {
            case CREATE, UPSERT -> Set.of("type", "document", "ifMatch");
            case REPLACE -> Set.of("type", "id", "document", "ifMatch");
            case READ, DELETE -> Set.of("type", "id", "ifMatch");
            case PATCH -> Set.of("type", "id", "patch", "ifMatch");
        };
    }

    private static BatchOperation.Type operationType(JsonNode node, String context) {
        String type = requiredString(node, "type", context);
        try {
            return BatchOperation.Type.fromWireName(type);
        } catch (IllegalArgumentException e) {
            throw new StoreException(StoreErrorCode.BAD_REQUEST, context + ": 'type' is an " + e.getMessage(), e);
        }
    }

    /** Patch operations given as a JSON array; {@code context} starts each error message. */
    public static List<PatchOperation> patchOperations(JsonNode array, String context) {
        List<PatchOperation> operations = new ArrayList<>();
        int index = 0;
        for (JsonNode node : array) {
            index++;
            String where = context + ": patch operation " + index;
            onlyKnownFields(object(node, where, "it", "{\"op\":\"set\",\"path\":\"/status\",\"value\":\"paid\"}"),
                    PATCH_FIELDS, where, "a patch operation has op, path, from and value");
            String op = requiredString(node, "op", where);
            PatchOperation.Type type;
            try {
                type = PatchOperation.Type.fromWireName(op);
            } catch (IllegalArgumentException e) {
                throw new StoreException(StoreErrorCode.BAD_REQUEST, where + ": 'op' is an " + e.getMessage(), e);
            }
            // A JSON null value is a value (set a property to null); only an absent one is missing.
            operations.add(new PatchOperation(type, requiredString(node, "path", where),
                    optionalString(node, "from", where), node.get("value")));
        }
        return operations;
    }

    /** The array of a body {@code {"operations":[...]}}; {@code context} starts each error message. */
    public static JsonNode operationsArray(JsonNode body, String context) {
        JsonNode node = object(body, context, "the body", "{\"operations\":[...]}");
        onlyKnownFields(node, Set.of("operations"), context, "the body has only 'operations'");
        JsonNode operations = node.get("operations");
        if (operations == null || !operations.isArray()) {
            throw badRequest(context + ": 'operations' must be an array, not " + describe(operations));
        }
        return operations;
    }

    private static PartitionKey partitionKey(JsonNode value, String context) {
        try {
            return WireFormat.readPartitionKey(value);
        } catch (IllegalArgumentException e) {
            throw new StoreException(StoreErrorCode.BAD_REQUEST, context + ": 'partitionKey' must be a string, "
                    + "number, boolean or null, or {} for none: " + e.getMessage(), e);
        }
    }

    private static JsonNode object(JsonNode node, String context, String what, String example) {
        if (!node.isObject()) {
            throw badRequest(context + ": " + what + " must be a JSON object such as " + example + ", not "
                    + describe(node));
        }
        return node;
    }

    private static void onlyKnownFields(JsonNode node, Set<String> known, String context, String rule) {
        for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!known.contains(name)) {
                throw badRequest(context + ": unknown property '" + name + "'; " + rule);
            }
        }
    }

    private static String requiredString(JsonNode node, String field, String context) {
        JsonNode value = node.get(field);
        if (value == null || !value.isTextual()) {
            throw badRequest(context + ": '" + field + "' must be a string, not " + describe(value));
        }
        return value.textValue();
    }

    private static String optionalString(JsonNode node, String field, String context) {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isTextual()) {
            throw badRequest(context + ": '" + field + "' must be a string, not " + describe(value));
        }
        return value.textValue();
    }

    /** An int property, or {@code null} when absent or JSON null. */
    private static Integer optionalInt(JsonNode node, String field, String context, String meaning) {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            return null;
        }
        // isInt() is true only for an integer written without fraction or exponent that fits an int; it never
        // computes the value of a number like 1e2147483647.
        if (!value.isInt()) {
            throw badRequest(context + ": '" + field + "' must be an integer (" + meaning + ") from "
                    + Integer.MIN_VALUE + " to " + Integer.MAX_VALUE + ", not "
                    + (value.isIntegralNumber() ? "an integer out of that range" : describe(value)));
        }
        return value.intValue();
    }

    /** What a JSON value is, for messages: {@code the string "x"}, {@code an object}. */
    private static String describe(JsonNode value) {
        if (value == null || value.isMissingNode()) {
            return "missing";
        }
        if (value.isTextual()) {
            String text = value.textValue();
            return "the string " + StoreJson.mapper().getNodeFactory().textNode(
                    text.length() > 40 ? text.substring(0, 40) + "..." : text);
        }
        if (value.isIntegralNumber()) {
            return "an integer";
        }
        if (value.isNumber()) {
            return "a number with a fraction or an exponent";
        }
        return switch (value.getNodeType()) {
            case OBJECT -> "an object";
            case ARRAY -> "an array";
            case BOOLEAN -> "a boolean";
            case NULL -> "null";
            default -> value.getNodeType().name().toLowerCase(Locale.ROOT);
        };
    }

    private static StoreException badRequest(String message) {
        return new StoreException(StoreErrorCode.BAD_REQUEST, message);
    }
}
