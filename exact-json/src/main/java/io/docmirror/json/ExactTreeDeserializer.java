package io.docmirror.json;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.Module;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.type.LogicalType;
import com.fasterxml.jackson.databind.util.RawValue;

import java.io.IOException;
import java.util.Locale;
import java.util.Objects;

/**
 * Reads JSON into a tree whose numbers are exact and keep what the {@link NumberFidelity} asks for, where Jackson's
 * own tree reader would turn {@code -0.0} into {@code 0.0} (or {@code 0} without exact decimals), {@code 1e2} into
 * {@code 1E+2}, and fail on {@code 1e-2147483648}. Everything else is as Jackson reads it, including the duplicate
 * property check when {@link DeserializationFeature#FAIL_ON_READING_DUP_TREE_KEY} is on. Nesting is bounded by the
 * parser's constraints.
 */
public final class ExactTreeDeserializer extends StdDeserializer<JsonNode> {
    private static final long serialVersionUID = 1L;

    private final NumberFidelity fidelity;

    public ExactTreeDeserializer(NumberFidelity fidelity) {
        super(JsonNode.class);
        this.fidelity = Objects.requireNonNull(fidelity, "fidelity is null");
    }

    /** A module that makes a mapper read every tree with this deserializer ({@code readTree} included). */
    public static Module module(NumberFidelity fidelity) {
        return new SimpleModule("exact-numbers-" + fidelity.name().toLowerCase(Locale.ROOT))
                .addDeserializer(JsonNode.class, new ExactTreeDeserializer(fidelity));
    }

    @Override
    public JsonNode deserialize(JsonParser parser, DeserializationContext context) throws IOException {
        return read(parser, context, context.getNodeFactory());
    }

    /** A JSON {@code null} property value is a {@link NullNode}, as with Jackson's own reader, not a Java null. */
    @Override
    public JsonNode getNullValue(DeserializationContext context) {
        return NullNode.getInstance();
    }

    @Override
    public Object getAbsentValue(DeserializationContext context) {
        return null;
    }

    @Override
    public boolean isCachable() {
        return true;
    }

    @Override
    public LogicalType logicalType() {
        return LogicalType.Untyped;
    }

    private JsonNode read(JsonParser parser, DeserializationContext context, JsonNodeFactory nodes) throws IOException {
        JsonToken token = parser.currentToken();
        if (token == null) {
            return context.reportInputMismatch(JsonNode.class, "Unexpected end of input: a JSON value is missing");
        }
        return switch (token) {
            case START_OBJECT -> readFields(parser, parser.nextToken(), context, nodes);
            // A deserializer may be handed an object after its '{', on its first name or its '}'.
            case FIELD_NAME, END_OBJECT -> readFields(parser, token, context, nodes);
            case START_ARRAY -> readElements(parser, context, nodes);
            case VALUE_STRING -> nodes.textNode(parser.getText());
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> number(parser, token, nodes);
            case VALUE_TRUE, VALUE_FALSE -> nodes.booleanNode(token == JsonToken.VALUE_TRUE);
            case VALUE_NULL -> nodes.nullNode();
            case VALUE_EMBEDDED_OBJECT -> embedded(parser.getEmbeddedObject(), nodes);
            default -> (JsonNode) context.handleUnexpectedToken(JsonNode.class, parser);
        };
    }

    private JsonNode number(JsonParser parser, JsonToken token, JsonNodeFactory nodes) throws IOException {
        if (parser.isNaN()) {
            // Only a tree or a token buffer has these: JSON text cannot spell them.
            return nodes.numberNode(parser.getDoubleValue());
        }
        char[] chars = parser.getTextCharacters();
        int offset = parser.getTextOffset();
        int length = parser.getTextLength();
        NumberSpelling spelling = NumberSpelling.ofParsed(chars, offset, length);
        if (spelling == NumberSpelling.INTEGER && token == JsonToken.VALUE_NUMBER_INT) {
            // The parser has the value, with no String made for it. (A token buffer holds a number written as text
            // as a float, whatever the text: that one is made from its text, as every other number is.)
            return switch (parser.getNumberType()) {
                case INT -> nodes.numberNode(parser.getIntValue());
                case LONG -> nodes.numberNode(parser.getLongValue());
                default -> nodes.numberNode(parser.getBigIntegerValue());
            };
        }
        return fidelity.numberNode(spelling, new String(chars, offset, length), nodes);
    }

    private ObjectNode readFields(JsonParser parser, JsonToken first, DeserializationContext context,
            JsonNodeFactory nodes) throws IOException {
        ObjectNode object = nodes.objectNode();
        for (JsonToken token = first; token == JsonToken.FIELD_NAME; token = parser.nextToken()) {
            String name = parser.currentName();
            parser.nextToken();
            JsonNode previous = object.replace(name, read(parser, context, nodes));
            if (previous != null && context.isEnabled(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY)) {
                context.reportInputMismatch(JsonNode.class, "Duplicate field '%s' for `ObjectNode`: not allowed when "
                        + "`DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY` enabled", name);
            }
        }
        return object;
    }

    private ArrayNode readElements(JsonParser parser, DeserializationContext context, JsonNodeFactory nodes)
            throws IOException {
        ArrayNode array = nodes.arrayNode();
        while (parser.nextToken() != JsonToken.END_ARRAY) {
            array.add(read(parser, context, nodes));
        }
        return array;
    }

    private static JsonNode embedded(Object value, JsonNodeFactory nodes) {
        if (value == null) {
            return nodes.nullNode();
        }
        if (value instanceof byte[] bytes) {
            return nodes.binaryNode(bytes);
        }
        if (value instanceof RawValue raw) {
            return nodes.rawValueNode(raw);
        }
        return value instanceof JsonNode node ? node : nodes.pojoNode(value);
    }
}
