package io.docmirror.query;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.TextNode;

import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiPredicate;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The built-in scalar functions docmirror runs, by their Cosmos DB names (matched without regard to case). Each is
 * undefined when given a value of the wrong type, as in Cosmos DB; undefined arguments arrive as Java nulls.
 */
enum SystemFunction {
    IS_DEFINED(1, 1, arguments -> BooleanNode.valueOf(arguments.get(0) != null)),
    IS_NULL(1, 1, arguments -> BooleanNode.valueOf(arguments.get(0) != null && arguments.get(0).isNull())),
    IS_BOOL(1, 1, arguments -> BooleanNode.valueOf(arguments.get(0) != null && arguments.get(0).isBoolean())),
    /** IS_BOOL's other name, which the SDKs write in the filters with which they resume an ORDER BY query. */
    IS_BOOLEAN(1, 1, IS_BOOL.body),
    IS_NUMBER(1, 1, arguments -> BooleanNode.valueOf(arguments.get(0) != null && arguments.get(0).isNumber())),
    IS_STRING(1, 1, arguments -> BooleanNode.valueOf(arguments.get(0) != null && arguments.get(0).isTextual())),
    IS_ARRAY(1, 1, arguments -> BooleanNode.valueOf(arguments.get(0) != null && arguments.get(0).isArray())),
    IS_OBJECT(1, 1, arguments -> BooleanNode.valueOf(arguments.get(0) != null && arguments.get(0).isObject())),
    IS_PRIMITIVE(1, 1, arguments -> BooleanNode.valueOf(arguments.get(0) != null
            && (arguments.get(0).isNull() || arguments.get(0).isValueNode()))),
    ARRAY_CONTAINS(2, 3, SystemFunction::arrayContains),
    ARRAY_LENGTH(1, 1, arguments -> arguments.get(0) != null && arguments.get(0).isArray()
            ? IntNode.valueOf(arguments.get(0).size()) : null),
    STARTSWITH(2, 3, arguments -> textTest(arguments, (text, part) -> text.startsWith(part))),
    ENDSWITH(2, 3, arguments -> textTest(arguments, (text, part) -> text.endsWith(part))),
    CONTAINS(2, 3, arguments -> textTest(arguments, (text, part) -> text.contains(part))),
    LOWER(1, 1, arguments -> mapText(arguments.get(0), text -> text.toLowerCase(Locale.ROOT))),
    UPPER(1, 1, arguments -> mapText(arguments.get(0), text -> text.toUpperCase(Locale.ROOT))),
    LENGTH(1, 1, arguments -> arguments.get(0) != null && arguments.get(0).isTextual()
            ? IntNode.valueOf(arguments.get(0).textValue().codePointCount(0, arguments.get(0).textValue().length()))
            : null),
    CONCAT(2, Integer.MAX_VALUE, SystemFunction::concat);

    private static final Map<String, SystemFunction> BY_NAME = Arrays.stream(values())
            .collect(Collectors.toMap(Enum::name, function -> function));

    private final int minArguments;
    private final int maxArguments;
    private final Function<List<JsonNode>, JsonNode> body;

    SystemFunction(int minArguments, int maxArguments, Function<List<JsonNode>, JsonNode> body) {
        this.minArguments = minArguments;
        this.maxArguments = maxArguments;
        this.body = body;
    }

    /** The function of this name, whatever its case. */
    static Optional<SystemFunction> find(String name) {
        return Optional.ofNullable(BY_NAME.get(name.toUpperCase(Locale.ROOT)));
    }

    boolean accepts(int argumentCount) {
        return argumentCount >= minArguments && argumentCount <= maxArguments;
    }

    String arity() {
        if (minArguments == maxArguments) {
            return minArguments + (minArguments == 1 ? " argument" : " arguments");
        }
        return maxArguments == Integer.MAX_VALUE ? "at least " + minArguments + " arguments"
                : minArguments + " to " + maxArguments + " arguments";
    }

    JsonNode apply(List<JsonNode> arguments) {
        return body.apply(arguments);
    }

    /**
     * ARRAY_CONTAINS(array, value[, partial]): whether an element equals the value; with partial true, an object
     * value matches an element object that has all of its properties with equal values.
     */
    private static JsonNode arrayContains(List<JsonNode> arguments) {
        JsonNode array = arguments.get(0);
        JsonNode wanted = arguments.get(1);
        JsonNode partial = arguments.size() > 2 ? arguments.get(2) : BooleanNode.FALSE;
        if (array == null || !array.isArray() || wanted == null || partial == null || !partial.isBoolean()) {
            return null;
        }
        for (JsonNode element : array) {
            boolean matches = partial.booleanValue() && wanted.isObject() && element.isObject()
                    ? hasAllProperties(element, wanted) : JsonOrder.equal(element, wanted);
            if (matches) {
                return BooleanNode.TRUE;
            }
        }
        return BooleanNode.FALSE;
    }

    private static boolean hasAllProperties(JsonNode element, JsonNode wanted) {
        for (Iterator<Map.Entry<String, JsonNode>> properties = wanted.fields(); properties.hasNext(); ) {
            Map.Entry<String, JsonNode> property = properties.next();
            JsonNode actual = element.get(property.getKey());
            if (actual == null || !JsonOrder.equal(actual, property.getValue())) {
                return false;
            }
        }
        return true;
    }

    /** STARTSWITH, ENDSWITH, CONTAINS: two strings and an optional ignore-case boolean. */
    private static JsonNode textTest(List<JsonNode> arguments, BiPredicate<String, String> test) {
        JsonNode text = arguments.get(0);
        JsonNode part = arguments.get(1);
        JsonNode ignoreCase = arguments.size() > 2 ? arguments.get(2) : BooleanNode.FALSE;
        if (text == null || !text.isTextual() || part == null || !part.isTextual() || ignoreCase == null
                || !ignoreCase.isBoolean()) {
            return null;
        }
        if (ignoreCase.booleanValue()) {
            return BooleanNode.valueOf(test.test(foldCase(text.textValue()), foldCase(part.textValue())));
        }
        return BooleanNode.valueOf(test.test(text.textValue(), part.textValue()));
    }

    private static String foldCase(String text) {
        return text.toUpperCase(Locale.ROOT).toLowerCase(Locale.ROOT);
    }

    private static JsonNode mapText(JsonNode value, Function<String, String> mapping) {
        return value != null && value.isTextual() ? TextNode.valueOf(mapping.apply(value.textValue())) : null;
    }

    private static JsonNode concat(List<JsonNode> arguments) {
        StringBuilder text = new StringBuilder();
        for (JsonNode argument : arguments) {
            if (argument == null || !argument.isTextual()) {
                return null;
            }
            text.append(argument.textValue());
        }
        return TextNode.valueOf(text.toString());
    }
}
