package io.docmirror.store.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.docmirror.store.PatchOperation;
import io.docmirror.store.StoreErrorCode;
import io.docmirror.store.StoreException;

import java.util.List;
import java.util.Locale;

/**
 * Applies Cosmos DB patch operations to an item's tree. The id, the partition key and the system properties cannot
 * be patched. Operations apply in order; the first that cannot apply fails the whole patch (the caller then stores
 * nothing).
 */
public final class PatchApplier {
    private final String container;
    private final List<String> partitionKeyPath;

    public PatchApplier(String container, String partitionKeyPath) {
        this.container = container;
        this.partitionKeyPath = JsonPointer.parse(partitionKeyPath);
    }

    /** Applies the operations to {@code item} in place. */
    public void apply(String id, ObjectNode item, List<PatchOperation> operations) {
        if (operations.isEmpty()) {
            throw new StoreException(StoreErrorCode.BAD_REQUEST,
                    "Cannot patch item '" + id + "' in container " + container + ": the patch has no operations");
        }
        if (operations.size() > PatchOperation.MAX_OPERATIONS) {
            throw new StoreException(StoreErrorCode.BAD_REQUEST, "Cannot patch item '" + id + "' in container "
                    + container + ": the patch has " + operations.size() + " operations, over the limit of "
                    + PatchOperation.MAX_OPERATIONS);
        }
        for (int index = 0; index < operations.size(); index++) {
            PatchOperation operation = operations.get(index);
            try {
                applyOne(item, operation);
            } catch (IllegalArgumentException e) {
                throw new StoreException(StoreErrorCode.BAD_REQUEST, "Cannot patch item '" + id + "' in container "
                        + container + ": operation " + (index + 1) + " (" + operation.op().wireName() + " "
                        + operation.path() + ") " + e.getMessage(), e);
            }
        }
    }

    private void applyOne(ObjectNode item, PatchOperation operation) {
        List<String> path = writablePath(operation.path());
        switch (operation.op()) {
            case ADD -> add(item, path, requireValue(operation));
            case SET -> set(item, path, requireValue(operation));
            case REPLACE -> {
                requireExisting(item, path);
                set(item, path, requireValue(operation));
            }
            case REMOVE -> remove(item, path);
            case INCR -> increment(item, path, requireValue(operation));
            case MOVE -> {
                if (operation.from() == null) {
                    throw new IllegalArgumentException("needs 'from'");
                }
                List<String> from = writablePath(operation.from());
                if (path.size() > from.size() && path.subList(0, from.size()).equals(from)) {
                    throw new IllegalArgumentException("cannot move a value into itself");
                }
                JsonNode value = requireExisting(item, from);
                remove(item, from);
                set(item, path, value);
            }
        }
    }

    private List<String> writablePath(String pointer) {
        List<String> path = JsonPointer.parse(pointer);
        if (path.size() == 1 && (path.get(0).equals("id") || DocumentValidator.SYSTEM_PROPERTIES.contains(path.get(0)))) {
            throw new IllegalArgumentException("targets '" + path.get(0) + "', which cannot be patched");
        }
        boolean onPartitionKey = path.size() <= partitionKeyPath.size()
                ? partitionKeyPath.subList(0, path.size()).equals(path)
                : path.subList(0, partitionKeyPath.size()).equals(partitionKeyPath);
        if (onPartitionKey) {
            throw new IllegalArgumentException("targets the partition key, which cannot be patched");
        }
        return path;
    }

    private static JsonNode requireValue(PatchOperation operation) {
        if (operation.value() == null) {
            throw new IllegalArgumentException("needs a 'value'");
        }
        return operation.value();
    }

    private static JsonNode parent(ObjectNode item, List<String> path) {
        JsonNode node = item;
        for (String segment : path.subList(0, path.size() - 1)) {
            node = child(node, segment);
            if (node == null) {
                throw new IllegalArgumentException("cannot apply: the parent of the path does not exist");
            }
        }
        if (!node.isContainerNode()) {
            throw new IllegalArgumentException("cannot apply: the parent of the path is not an object or array");
        }
        return node;
    }

    private static JsonNode child(JsonNode node, String segment) {
        if (node.isObject()) {
            return node.get(segment);
        }
        if (node.isArray()) {
            int index = arrayIndex(segment, node.size() - 1);
            return node.get(index);
        }
        return null;
    }

    private static JsonNode requireExisting(ObjectNode item, List<String> path) {
        JsonNode parent = parent(item, path);
        JsonNode value = child(parent, last(path));
        if (value == null) {
            throw new IllegalArgumentException("cannot apply: the path does not exist");
        }
        return value;
    }

    private static void add(ObjectNode item, List<String> path, JsonNode value) {
        JsonNode parent = parent(item, path);
        if (parent.isArray()) {
            ArrayNode array = (ArrayNode) parent;
            String segment = last(path);
            int index = segment.equals("-") ? array.size() : arrayIndex(segment, array.size());
            array.insert(index, value);
        }
        else {
            ((ObjectNode) parent).set(last(path), value);
        }
    }

    private static void set(ObjectNode item, List<String> path, JsonNode value) {
        JsonNode parent = parent(item, path);
        if (parent.isArray()) {
            ArrayNode array = (ArrayNode) parent;
            int index = arrayIndex(last(path), array.size());
            if (index == array.size()) {
                array.add(value);
            }
            else {
                array.set(index, value);
            }
        }
        else {
            ((ObjectNode) parent).set(last(path), value);
        }
    }

    private static void remove(ObjectNode item, List<String> path) {
        requireExisting(item, path);
        JsonNode parent = parent(item, path);
        if (parent.isArray()) {
            ((ArrayNode) parent).remove(arrayIndex(last(path), parent.size() - 1));
        }
        else {
            ((ObjectNode) parent).remove(last(path));
        }
    }

    /**
     * Adds as Cosmos DB does, in 64-bit integers or doubles ({@link Number64}): a sum is bounded by its type, so an
     * increment costs the same whatever the numbers' exponents. The stored value's spelling is not kept (it is a new
     * value); every other number of the item keeps its own.
     */
    private static void increment(ObjectNode item, List<String> path, JsonNode by) {
        if (!by.isNumber()) {
            throw new IllegalArgumentException("needs a numeric 'value' (a 64-bit integer or a double), not "
                    + abbreviate(by.toString()));
        }
        Number64 increment;
        try {
            increment = Number64.of(by);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("needs a 'value' that a 64-bit integer or a double holds: "
                    + e.getMessage(), e);
        }
        JsonNode parent = parent(item, path);
        JsonNode current = child(parent, last(path));
        if (current == null) {
            set(item, path, by);
            return;
        }
        if (!current.isNumber()) {
            throw new IllegalArgumentException("cannot increment "
                    + current.getNodeType().name().toLowerCase(Locale.ROOT) + " value " + abbreviate(current.toString()));
        }
        Number64 stored;
        try {
            stored = Number64.of(current);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("cannot increment the stored number, which a 64-bit integer or a double "
                    + "must hold: " + e.getMessage(), e);
        }
        set(item, path, stored.plus(increment).toNode());
    }

    private static String abbreviate(String text) {
        return text.length() > 40 ? text.substring(0, 40) + "..." : text;
    }

    private static int arrayIndex(String segment, int maxIndex) {
        int index;
        try {
            index = Integer.parseInt(segment);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("cannot apply: '" + segment + "' is not an array index", e);
        }
        if (index < 0 || index > maxIndex) {
            throw new IllegalArgumentException("cannot apply: array index " + index + " is out of bounds");
        }
        return index;
    }

    private static String last(List<String> path) {
        return path.get(path.size() - 1);
    }
}
