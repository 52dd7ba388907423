package io.docmirror.query;

import com.fasterxml.jackson.databind.JsonNode;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * How Cosmos DB orders and compares JSON values, with undefined as Java's null. Across types the order is undefined,
 * null, booleans (false before true), numbers, strings, arrays, objects: ORDER BY, MIN and MAX use it. Numbers
 * compare by their exact value, so {@code 9007199254740993} sorts after {@code 9007199254740992} (Cosmos DB's doubles
 * hold them as one value) and {@code 1} equals {@code 1.0}; strings compare by code point (the order of their UTF-8
 * bytes). Arrays compare element by element and objects by their properties in name order, a deterministic choice
 * where Cosmos DB compares hashes.
 */
final class JsonOrder {
    private static final int UNDEFINED = 0;
    private static final int NULL = 1;
    private static final int BOOLEAN = 2;
    private static final int NUMBER = 3;
    private static final int STRING = 4;
    private static final int ARRAY = 5;
    private static final int OBJECT = 6;

    private JsonOrder() {
    }

    /** The value's place in the cross-type order. */
    static int rank(JsonNode value) {
        if (value == null || value.isMissingNode()) {
            return UNDEFINED;
        }
        if (value.isNull()) {
            return NULL;
        }
        if (value.isBoolean()) {
            return BOOLEAN;
        }
        if (value.isNumber()) {
            return NUMBER;
        }
        if (value.isTextual()) {
            return STRING;
        }
        return value.isArray() ? ARRAY : OBJECT;
    }

    /** The total order of ORDER BY over any two values, undefined (null) included. */
    static int compare(JsonNode left, JsonNode right) {
        int leftRank = rank(left);
        int rightRank = rank(right);
        if (leftRank != rightRank) {
            return Integer.compare(leftRank, rightRank);
        }
        return switch (leftRank) {
            case BOOLEAN -> Boolean.compare(left.booleanValue(), right.booleanValue());
            case NUMBER -> DecimalArithmetic.valueOf(left).compareTo(DecimalArithmetic.valueOf(right));
            case STRING -> compareCodePoints(left.textValue(), right.textValue());
            case ARRAY -> compareArrays(left, right);
            case OBJECT -> compareObjects(left, right);
            default -> 0;
        };
    }

    /**
     * The comparison {@code =}, {@code <} and the others make: defined only between two values of one type, and for
     * {@code <}, {@code <=}, {@code >}, {@code >=} only between primitives; otherwise null (undefined).
     */
    static Integer compareForOperator(JsonNode left, JsonNode right, boolean equalityOnly) {
        int leftRank = rank(left);
        if (leftRank == UNDEFINED || leftRank != rank(right)) {
            return null;
        }
        if (!equalityOnly && (leftRank == ARRAY || leftRank == OBJECT)) {
            return null;
        }
        return compare(left, right);
    }

    /** Whether two values are equal as DISTINCT, GROUP BY and IN see them (numbers by value). */
    static boolean equal(JsonNode left, JsonNode right) {
        return rank(left) == rank(right) && compare(left, right) == 0;
    }

    /**
     * A string that two values share exactly when they are {@link #equal}: the key of DISTINCT and GROUP BY. Numbers
     * are keyed by their value without trailing zeros, object properties by name order.
     */
    static String key(JsonNode value) {
        StringBuilder key = new StringBuilder();
        appendKey(value, key);
        return key.toString();
    }

    private static void appendKey(JsonNode value, StringBuilder key) {
        switch (rank(value)) {
            case UNDEFINED -> key.append('u');
            case NULL -> key.append('n');
            case BOOLEAN -> key.append(value.booleanValue() ? 't' : 'f');
            case NUMBER -> {
                BigDecimal number = DecimalArithmetic.valueOf(value);
                key.append('d').append(number.signum() == 0 ? "0" : number.stripTrailingZeros().toString());
            }
            case STRING -> key.append('s').append(value.textValue().length()).append(':').append(value.textValue());
            case ARRAY -> {
                key.append('[');
                for (JsonNode element : value) {
                    appendKey(element, key);
                    key.append(',');
                }
                key.append(']');
            }
            default -> {
                key.append('{');
                for (Map.Entry<String, JsonNode> property : sortedProperties(value)) {
                    key.append(property.getKey().length()).append(':').append(property.getKey());
                    appendKey(property.getValue(), key);
                    key.append(',');
                }
                key.append('}');
            }
        }
    }

    static int compareCodePoints(String left, String right) {
        int leftIndex = 0;
        int rightIndex = 0;
        while (leftIndex < left.length() && rightIndex < right.length()) {
            int leftCodePoint = left.codePointAt(leftIndex);
            int rightCodePoint = right.codePointAt(rightIndex);
            if (leftCodePoint != rightCodePoint) {
                return Integer.compare(leftCodePoint, rightCodePoint);
            }
            leftIndex += Character.charCount(leftCodePoint);
            rightIndex += Character.charCount(rightCodePoint);
        }
        return Boolean.compare(leftIndex < left.length(), rightIndex < right.length());
    }

    private static int compareArrays(JsonNode left, JsonNode right) {
        int common = Math.min(left.size(), right.size());
        for (int index = 0; index < common; index++) {
            int result = compare(left.get(index), right.get(index));
            if (result != 0) {
                return result;
            }
        }
        return Integer.compare(left.size(), right.size());
    }

    private static int compareObjects(JsonNode left, JsonNode right) {
        Iterator<Map.Entry<String, JsonNode>> leftProperties = sortedProperties(left).iterator();
        Iterator<Map.Entry<String, JsonNode>> rightProperties = sortedProperties(right).iterator();
        while (leftProperties.hasNext() && rightProperties.hasNext()) {
            Map.Entry<String, JsonNode> leftProperty = leftProperties.next();
            Map.Entry<String, JsonNode> rightProperty = rightProperties.next();
            int result = compareCodePoints(leftProperty.getKey(), rightProperty.getKey());
            if (result == 0) {
                result = compare(leftProperty.getValue(), rightProperty.getValue());
            }
            if (result != 0) {
                return result;
            }
        }
        return Boolean.compare(leftProperties.hasNext(), rightProperties.hasNext());
    }

    private static List<Map.Entry<String, JsonNode>> sortedProperties(JsonNode object) {
        List<Map.Entry<String, JsonNode>> properties = new ArrayList<>();
        object.fields().forEachRemaining(properties::add);
        properties.sort((left, right) -> compareCodePoints(left.getKey(), right.getKey()));
        return properties;
    }
}
