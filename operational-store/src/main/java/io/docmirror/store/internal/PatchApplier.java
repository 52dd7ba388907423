package io.docmirror.store.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.docmirror.json.LiteralNumberNode;
import io.docmirror.store.PatchOperation;
import io.docmirror.store.StoreErrorCode;
import io.docmirror.store.StoreException;

import java.math.BigDecimal;
import java.util.List;

/**
 * Applies Cosmos DB patch operations to an item's tree. The id, the partition key and the system properties cannot
 * be patched. Operations apply in order; the first that cannot apply fails the whole patch (the caller then stores
 * nothing).
 */
public final class PatchApplier {
    private static final JsonNodeFactory NODES = JsonNodeFactory.withExactBigDecimals(true);

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
            }
            catch (IllegalArgumentException e) {
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

    private static void increment(ObjectNode item, List<String> path, JsonNode by) {
        if (!by.isNumber()) {
            throw new IllegalArgumentException("needs a numeric 'value', not " + by);
        }
        JsonNode parent = parent(item, path);
        JsonNode current = child(parent, last(path));
        if (current == null) {
            set(item, path, by);
            return;
        }
        if (!current.isNumber()) {
            throw new IllegalArgumentException("cannot increment " + current.getNodeType().name().toLowerCase(java.util.Locale.ROOT)
                    + " value " + current);
        }
        set(item, path, sum(current, by));
    }

    /**
     * The exact sum (a double would round it), an integer when both are. A zero sum is negative only when both
     * numbers are negative zeros, as in Cosmos DB's double arithmetic: {@code -0.0 + 0} is {@code 0.0}.
     */
    private static JsonNode sum(JsonNode current, JsonNode by) {
        BigDecimal left = exactValue(current);
        BigDecimal right = exactValue(by);
        long digits = Math.max(integerDigits(left), integerDigits(right)) + 1
                + Math.max(0, Math.max(left.scale(), right.scale()));
        if (digits > DocumentValidator.MAX_ITEM_BYTES) {
            throw new IllegalArgumentException("cannot increment " + abbreviate(current.asText()) + " by "
                    + abbreviate(by.asText()) + ": the exact sum would have " + digits
                    + " digits, more than an item can hold");
        }
        BigDecimal sum = left.add(right);
        boolean integral = current.isIntegralNumber() && by.isIntegralNumber();
        if (sum.signum() == 0 && isNegativeZero(current) && isNegativeZero(by)) {
            return new LiteralNumberNode("-" + (integral ? "0" : sum.toString()));
        }
        JsonNode result = integral ? NODES.numberNode(sum.toBigIntegerExact()) : NODES.numberNode(sum);
        if (result.isBigInteger() && result.bigIntegerValue().bitLength() < 64) {
            result = NODES.numberNode(result.longValue());
        }
        return result;
    }

    private static BigDecimal exactValue(JsonNode number) {
        try {
            return number.decimalValue();
        }
        catch (NumberFormatException e) {
            throw new IllegalArgumentException("cannot increment with " + abbreviate(number.asText())
                    + ": no exact decimal holds a number with that exponent", e);
        }
    }

    /** Digits left of the point (negative for a number below 0.1), as a long: the exponent may be near an int's end. */
    private static long integerDigits(BigDecimal value) {
        return (long) value.precision() - value.scale();
    }

    /** {@code -0}, {@code -0.0}: a JSON spelling (or a double) that a BigDecimal value has lost the sign of. */
    private static boolean isNegativeZero(JsonNode number) {
        return number.asText().startsWith("-") && number.decimalValue().signum() == 0;
    }

    private static String abbreviate(String text) {
        return text.length() > 40 ? text.substring(0, 40) + "..." : text;
    }

    private static int arrayIndex(String segment, int maxIndex) {
        int index;
        try {
            index = Integer.parseInt(segment);
        }
        catch (NumberFormatException e) {
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
