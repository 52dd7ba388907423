package io.docmirror.flatten;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.TextNode;

import java.io.IOException;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.regex.Pattern;

/**
 * One value that goes into one column (a scalar, a list of scalars, or JSON text), with its natural type: the
 * column it would make on its own.
 */
final class Leaf {
    /** Only the canonical UTC spelling is a timestamp, so that the text comes back exactly as written. */
    private static final Pattern TIMESTAMP = Pattern.compile(
            "\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{3}|\\.\\d{6})?Z");

    ValueTag natural;
    /** For numbers. */
    NumberShape number;
    /** For numeric lists: one shape per element, {@code null} for null elements. */
    NumberShape[] elementShapes;
    /** For numeric lists: what all elements together need. */
    NumberFacts elementFacts;
    /** Boolean, String, Instant or JSON text, as the tag says. */
    Object value;
    /** For lists and JSON text: the array or value itself ({@code null} for JSON copied as text). */
    private JsonNode tree;
    /** The shape a reused scalar leaf reads its numbers into. */
    private final NumberShape ownShape;

    /**
     * A leaf to read scalars into, one after the other ({@link #readScalar}). Scalars are the bulk of all values, and
     * each is placed before the walk goes on, so one object serves them all.
     */
    static Leaf forScalars() {
        return new Leaf(null, null, null, null, null, null, new NumberShape());
    }

    private Leaf(ValueTag natural, JsonNode tree, NumberShape number, NumberShape[] elementShapes,
            NumberFacts elementFacts, Object value) {
        this(natural, tree, number, elementShapes, elementFacts, value, null);
    }

    private Leaf(ValueTag natural, JsonNode tree, NumberShape number, NumberShape[] elementShapes,
            NumberFacts elementFacts, Object value, NumberShape ownShape) {
        this.ownShape = ownShape;
        this.natural = natural;
        this.tree = tree;
        this.number = number;
        this.elementShapes = elementShapes;
        this.elementFacts = elementFacts;
        this.value = value;
    }

    /**
     * Reads the scalar the parser is on into this reusable leaf and returns it, or returns a new JSON leaf for a
     * string that UTF-8 cannot encode (an unpaired surrogate).
     */
    Leaf readScalar(JsonParser parser, JsonToken token, boolean detectTimestamps, boolean mayHoldSurrogates)
            throws IOException {
        number = null;
        switch (token) {
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> {
                number = ownShape.read(parser);
                natural = number.naturalTag();
                value = null;
            }
            case VALUE_TRUE, VALUE_FALSE -> {
                natural = ValueTag.BOOLEAN;
                value = token == JsonToken.VALUE_TRUE;
            }
            case VALUE_STRING -> {
                boolean unpairedSurrogate = mayHoldSurrogates && JsonText.stringHasUnpairedSurrogate(parser);
                String text = parser.getText();
                if (unpairedSurrogate) {
                    return ofJson(TextNode.valueOf(text));
                }
                Instant timestamp = detectTimestamps ? parseTimestamp(text) : null;
                natural = timestamp != null ? ValueTag.TIMESTAMP : ValueTag.VARCHAR;
                value = timestamp != null ? timestamp : text;
            }
            default -> throw new IllegalArgumentException("Cannot flatten a " + token + " token: not a JSON value");
        }
        return this;
    }

    static Leaf ofJson(JsonNode node) {
        return new Leaf(ValueTag.JSON, node, null, null, null, JsonText.write(node));
    }

    /** JSON text that {@link JsonText} wrote or copied. */
    static Leaf ofJsonText(String text) {
        return new Leaf(ValueTag.JSON, null, null, null, null, text);
    }

    /** A number as its exact literal text, for when no numeric column can hold it together with its neighbours. */
    Leaf asNumberText() {
        return new Leaf(ValueTag.NUMBER, null, number, null, null, null);
    }

    Leaf asJson() {
        return ofJson(toNode());
    }

    /** The value as JSON, as the document held it. */
    JsonNode toNode() {
        return switch (natural) {
            case BOOLEAN -> BooleanNode.valueOf((Boolean) value);
            case VARCHAR -> TextNode.valueOf((String) value);
            // Only the canonical spelling is detected as a timestamp, so the instant spells the text again.
            case TIMESTAMP -> TextNode.valueOf(value.toString());
            case BIGINT, DOUBLE, DECIMAL, NUMBER -> number.toNode();
            // JSON copied as text has no tree; the text reads back to the value exactly.
            case JSON -> tree != null ? tree : JsonText.read((String) value);
            default -> tree;
        };
    }

    /** The array of a list leaf. */
    JsonNode list() {
        return tree;
    }

    /**
     * A list leaf when every non-null element is a scalar of one kind (booleans, numbers some column type holds,
     * strings, or with detection on, timestamps); {@code null} when the array is mixed, nested or all nulls, or
     * holds a string with an unpaired surrogate.
     *
     * @param mayHoldSurrogates {@code false} when the document is known to hold no surrogate, so that its strings
     *     need no check
     */
    static Leaf ofScalarArray(ArrayNode array, boolean detectTimestamps, boolean mayHoldSurrogates) {
        ValueTag kind = null;
        boolean allTimestamps = detectTimestamps;
        NumberShape[] shapes = null;
        NumberFacts facts = null;
        for (int index = 0; index < array.size(); index++) {
            JsonNode element = array.get(index);
            ValueTag elementKind;
            if (element.isNull()) {
                continue;
            } else if (element.isBoolean()) {
                elementKind = ValueTag.BOOLEAN_LIST;
            } else if (element.isNumber()) {
                elementKind = ValueTag.NUMERIC_LIST;
                NumberShape shape = NumberShape.of(element);
                if (shape.naturalTag() == ValueTag.NUMBER) {
                    return null;
                }
                if (shapes == null) {
                    shapes = new NumberShape[array.size()];
                    facts = new NumberFacts(false);
                }
                if (facts.typeWith(shape) == null) {
                    return null;
                }
                shapes[index] = shape;
                facts.add(shape);
            } else if (element.isTextual()) {
                elementKind = ValueTag.VARCHAR_LIST;
                if (mayHoldSurrogates && JsonText.hasUnpairedSurrogate(element.textValue())) {
                    return null;
                }
                allTimestamps = allTimestamps && parseTimestamp(element.textValue()) != null;
            } else {
                return null;
            }
            if (kind != null && kind != elementKind) {
                return null;
            }
            kind = elementKind;
        }
        if (kind == null) {
            return null;
        }
        if (kind == ValueTag.VARCHAR_LIST && allTimestamps) {
            kind = ValueTag.TIMESTAMP_LIST;
        }
        return new Leaf(kind, array, null, shapes, facts, null);
    }

    /** The tag of the path's value column this leaf can go to; {@code null} if it can only be a variant. */
    ValueTag valueColumnTag() {
        return switch (natural) {
            case BIGINT, DOUBLE, DECIMAL -> ValueTag.NUMERIC;
            case NUMBER -> null;
            default -> natural;
        };
    }

    /** The leaf's own type, as conflict reports name it. */
    String typeName() {
        return switch (natural) {
            case NUMBER -> "NUMBER beyond DECIMAL(38)";
            case NUMERIC_LIST -> elementFacts.type().sql() + "[]";
            default -> naturalType().sql();
        };
    }

    /** The column type this leaf makes on its own in a column of its natural tag. */
    ColumnType naturalType() {
        return switch (natural) {
            case BOOLEAN -> ColumnType.BOOLEAN;
            case BIGINT, DOUBLE, DECIMAL, NUMBER -> number.naturalType();
            case VARCHAR -> ColumnType.VARCHAR;
            case TIMESTAMP -> ColumnType.TIMESTAMP;
            case JSON -> ColumnType.JSON;
            case BOOLEAN_LIST -> ColumnType.list(ColumnType.BOOLEAN);
            case NUMERIC_LIST -> ColumnType.list(elementFacts.type());
            case VARCHAR_LIST -> ColumnType.list(ColumnType.VARCHAR);
            case TIMESTAMP_LIST -> ColumnType.list(ColumnType.TIMESTAMP);
            case NUMERIC -> throw new IllegalStateException("A leaf is never NUMERIC by nature");
        };
    }

    static Instant parseTimestamp(String text) {
        if (!TIMESTAMP.matcher(text).matches()) {
            return null;
        }
        try {
            Instant instant = Instant.parse(text);
            return DateTimeFormatter.ISO_INSTANT.format(instant).equals(text) ? instant : null;
        } catch (DateTimeParseException notADate) {
            // Shaped like a timestamp but not one (month 13, February 30): an ordinary string.
            return null;
        }
    }
}
