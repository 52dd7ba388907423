package io.docmirror.store.internal;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.docmirror.store.PartitionKey;
import io.docmirror.store.StoreErrorCode;
import io.docmirror.store.StoreException;
import io.docmirror.store.StoreJson;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * Checks a document against every rule of the store in one streaming pass and re-encodes it, so that what is stored
 * is exactly what was checked. The rules, as Cosmos DB has them:
 * <ul>
 *   <li>strict UTF-8 (no BOM, no overlong forms, no encoded surrogates) and strict RFC 8259 JSON with one top-level
 *       object; no duplicate property names; no unpaired UTF-16 surrogate escapes;</li>
 *   <li>at most {@value #MAX_ITEM_BYTES} bytes and {@value StoreJson#MAX_NESTING_DEPTH} levels of nesting (the
 *       top-level object is level 1);</li>
 *   <li>a string {@code id} of 1-{@value #MAX_ID_BYTES} UTF-8 bytes without {@code / \ ? #};</li>
 *   <li>a partition key value that is a string, number, boolean or null (a missing one is {@link PartitionKey#NONE});</li>
 *   <li>a {@code ttl}, when present, of -1 or 1..2147483647 seconds.</li>
 * </ul>
 * Numbers are copied as the text they were written with, so none is ever rounded or respelled, and a number may be
 * as long as the item allows ({@link StoreJson#MAX_NUMBER_LENGTH}). The system properties
 * {@code _rid, _etag, _ts, _lsn} of the input are dropped: the store sets them. So are Cosmos DB's {@code _self} and
 * {@code _attachments}, which the Cosmos DB routes add to the items they answer with, so that an item read there
 * and written back does not keep them.
 */
public final class DocumentValidator {
    public static final int MAX_ITEM_BYTES = 2 * 1024 * 1024;
    public static final int MAX_ID_BYTES = 1023;
    public static final Set<String> SYSTEM_PROPERTIES = Set.of("_rid", "_etag", "_ts", "_lsn", "_self",
            "_attachments");

    private final String container;
    private final List<String> partitionKeyPath;

    /**
     * @param partitionKeyPath the container's partition key path, e.g. {@code /customer/id}
     */
    public DocumentValidator(String container, String partitionKeyPath) {
        this.container = requireNonNull(container, "container is null");
        this.partitionKeyPath = JsonPointer.parse(partitionKeyPath);
    }

    /**
     * @throws StoreException with {@link StoreErrorCode#BAD_REQUEST} or {@link StoreErrorCode#TOO_LARGE}, naming the
     *         container, the id when it was read, the JSON path and the rule
     */
    public ValidatedDocument validate(byte[] json) {
        requireNonNull(json, "json is null");
        if (json.length > MAX_ITEM_BYTES) {
            throw new StoreException(StoreErrorCode.TOO_LARGE, "Cannot write item to container " + container
                    + ": it is " + json.length + " bytes, over the limit of " + MAX_ITEM_BYTES + " bytes (2 MB)");
        }
        checkUtf8(json);
        Pass pass = new Pass(json);
        try {
            return pass.run();
        } catch (JsonProcessingException e) {
            // A broken read constraint (a name over 50,000 characters, say) has no location.
            String where = e.getLocation() == null ? ""
                    : " (line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr() + ")";
            throw pass.failure("is not valid JSON: " + e.getOriginalMessage() + where, e);
        } catch (IOException e) {
            throw new StoreException(StoreErrorCode.INTERNAL_ERROR, "Cannot read item for container " + container, e);
        }
    }

    private void checkUtf8(byte[] json) {
        if (json.length >= 3 && (json[0] & 0xff) == 0xEF && (json[1] & 0xff) == 0xBB && (json[2] & 0xff) == 0xBF) {
            throw new StoreException(StoreErrorCode.BAD_REQUEST, "Cannot write item to container " + container
                    + ": it starts with a UTF-8 byte order mark, which JSON exchanged between systems must not have");
        }
        int firstNonAscii = 0;
        while (firstNonAscii < json.length && json[firstNonAscii] >= 0) {
            firstNonAscii++;
        }
        if (firstNonAscii == json.length) {
            return; // ASCII is UTF-8; most documents are ASCII, and the decoder below costs as much as parsing them
        }
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT);
        ByteBuffer in = ByteBuffer.wrap(json, firstNonAscii, json.length - firstNonAscii);
        CharBuffer out = CharBuffer.allocate(Math.min(json.length, 8192));
        while (true) {
            CoderResult result = decoder.decode(in, out, true);
            if (result.isError()) {
                throw new StoreException(StoreErrorCode.BAD_REQUEST, "Cannot write item to container " + container
                        + ": it is not valid UTF-8 (invalid byte sequence at byte offset " + in.position() + ")");
            }
            if (result.isUnderflow()) {
                return;
            }
            out.clear();
        }
    }

    /** One validation of one document; keeps the parse state that error messages report. */
    private final class Pass {
        private final byte[] json;
        private final List<Frame> stack = new ArrayList<>();
        /** Frames of closed objects and arrays, reused: a document opens many, and most are small. */
        private final List<Frame> spareFrames = new ArrayList<>();
        private String id;

        Pass(byte[] json) {
            this.json = json;
        }

        ValidatedDocument run() throws IOException {
            ByteArrayOutputStream out = new ByteArrayOutputStream(json.length + 16);
            JsonNode partitionKey = null;
            Integer ttl = null;
            boolean hasProperties = false;
            try (JsonParser parser = StoreJson.mapper().getFactory().createParser(json);
                    JsonGenerator generator = StoreJson.mapper().getFactory().createGenerator(out, JsonEncoding.UTF8)) {
                generator.disable(JsonGenerator.Feature.AUTO_CLOSE_JSON_CONTENT);
                JsonToken token = parser.nextToken();
                if (token != JsonToken.START_OBJECT) {
                    throw failure(token == null ? "is empty: a document is one JSON object"
                            : "is not a JSON object but " + describe(token) + ": a document is one JSON object", null);
                }
                generator.writeStartObject();
                push(true);
                while (!stack.isEmpty()) {
                    token = parser.nextToken();
                    Frame frame = stack.get(stack.size() - 1);
                    if (token == JsonToken.FIELD_NAME) {
                        String name = parser.currentName();
                        checkSurrogates(name, "property name");
                        frame.field = name;
                        if (!frame.names.add(name)) {
                            throw failure("has the property name '" + name + "' twice in one object", null);
                        }
                        if (stack.size() == 1 && SYSTEM_PROPERTIES.contains(name)) {
                            parser.nextToken();
                            parser.skipChildren();
                            continue;
                        }
                        generator.writeFieldName(name);
                        if (stack.size() == 1) {
                            hasProperties = true;
                        }
                        continue;
                    }
                    if (token == JsonToken.END_OBJECT || token == JsonToken.END_ARRAY) {
                        spareFrames.add(stack.remove(stack.size() - 1));
                        if (!stack.isEmpty()) {
                            if (token == JsonToken.END_OBJECT) {
                                generator.writeEndObject();
                            }
                            else {
                                generator.writeEndArray();
                            }
                            stack.get(stack.size() - 1).index++;
                        }
                        continue;
                    }
                    boolean atPartitionKey = isAtPartitionKey();
                    boolean atRoot = stack.size() == 1;
                    if (token == JsonToken.START_OBJECT || token == JsonToken.START_ARRAY) {
                        if (atPartitionKey) {
                            throw failure("has a partition key value that is "
                                    + (token == JsonToken.START_OBJECT ? "an object" : "an array")
                                    + ": it must be a string, number, boolean or null", null);
                        }
                        if (atRoot && "id".equals(frame.field)) {
                            throw failure("has an id that is not a string", null);
                        }
                        if (stack.size() + 1 > StoreJson.MAX_NESTING_DEPTH) {
                            throw failure("nests deeper than " + StoreJson.MAX_NESTING_DEPTH + " levels", null);
                        }
                        if (push(token == JsonToken.START_OBJECT).isObject) {
                            generator.writeStartObject();
                        }
                        else {
                            generator.writeStartArray();
                        }
                        continue;
                    }
                    boolean needValue = atPartitionKey
                            || atRoot && ("id".equals(frame.field) || "ttl".equals(frame.field));
                    JsonNode scalar = copyScalar(parser, token, generator, needValue);
                    if (atPartitionKey) {
                        partitionKey = checkPartitionKey(scalar);
                    }
                    if (atRoot && "id".equals(frame.field)) {
                        id = checkId(scalar);
                    }
                    if (atRoot && "ttl".equals(frame.field)) {
                        ttl = checkTtl(scalar);
                    }
                    frame.index++;
                }
                if (parser.nextToken() != null) {
                    throw failure("has more than one JSON value: a document is exactly one JSON object", null);
                }
                generator.flush();
            }
            if (id == null) {
                throw failure("has no 'id': every item needs a string id", null);
            }
            PartitionKey key = partitionKey == null ? PartitionKey.NONE : PartitionKey.fromJson(partitionKey);
            if (key.encoded().length > PartitionKey.MAX_ENCODED_BYTES) {
                throw failure("has a partition key value over " + PartitionKey.MAX_ENCODED_BYTES + " bytes", null);
            }
            return new ValidatedDocument(id, key, ttl, out.toByteArray(), hasProperties);
        }

        private Frame push(boolean isObject) {
            Frame frame = spareFrames.isEmpty() ? new Frame() : spareFrames.remove(spareFrames.size() - 1);
            frame.open(isObject);
            stack.add(frame);
            return frame;
        }

        /** Copies one scalar to the output; returns its value when {@code needValue}, else null. */
        private JsonNode copyScalar(JsonParser parser, JsonToken token, JsonGenerator generator, boolean needValue)
                throws IOException {
            switch (token) {
                case VALUE_STRING -> {
                    if (!needValue) {
                        // Straight from the parser's buffer: most strings are only copied, and need no String.
                        CharBuffer text = CharBuffer.wrap(parser.getTextCharacters(), parser.getTextOffset(),
                                parser.getTextLength());
                        checkSurrogates(text, "string");
                        generator.writeString(text.array(), text.position(), text.remaining());
                        return null;
                    }
                    String text = parser.getText();
                    checkSurrogates(text, "string");
                    generator.writeString(text);
                    return TextNode.valueOf(text);
                }
                case VALUE_NUMBER_INT -> {
                    if (!needValue) {
                        generator.writeNumber(parser.getTextCharacters(), parser.getTextOffset(),
                                parser.getTextLength());
                        return null;
                    }
                    String text = parser.getText();
                    generator.writeNumber(text);
                    return StoreJson.numberNode(text);
                }
                case VALUE_NUMBER_FLOAT -> {
                    // The text as written: a double would round 0.1 and overflow 1e400, a BigDecimal respell 1e2.
                    String text = parser.getText();
                    checkExponent(text);
                    generator.writeNumber(text);
                    return needValue ? StoreJson.numberNode(text) : null;
                }
                case VALUE_TRUE, VALUE_FALSE -> {
                    generator.writeBoolean(token == JsonToken.VALUE_TRUE);
                    return BooleanNode.valueOf(token == JsonToken.VALUE_TRUE);
                }
                case VALUE_NULL -> {
                    generator.writeNull();
                    return NullNode.getInstance();
                }
                default -> throw failure("has an unexpected " + describe(token), null);
            }
        }

        /**
         * A number's text is its value, however long. A partition key number, though, is hashed by its exact
         * decimal value: it must have one, and its text must be short enough to be a key at all.
         */
        private JsonNode checkPartitionKey(JsonNode value) {
            if (!value.isNumber()) {
                return value;
            }
            if (value.asText().length() > PartitionKey.MAX_ENCODED_BYTES) {
                throw failure("has a partition key value over " + PartitionKey.MAX_ENCODED_BYTES + " bytes", null);
            }
            try {
                value.decimalValue();
            } catch (NumberFormatException e) {
                throw failure("has a partition key number whose exponent no exact decimal holds: "
                        + abbreviate(value.asText()), e);
            }
            return value;
        }

        /** An exact decimal (BigDecimal) holds exponents up to ten digits; beyond that a number has no exact value. */
        private void checkExponent(String number) {
            int exponentAt = Math.max(number.indexOf('e'), number.indexOf('E'));
            if (exponentAt < 0) {
                return;
            }
            try {
                Integer.parseInt(number.substring(exponentAt + 1));
            } catch (NumberFormatException e) {
                throw failure("has a number whose exponent is beyond +-2147483647: " + abbreviate(number), e);
            }
        }

        private boolean isAtPartitionKey() {
            if (stack.size() != partitionKeyPath.size()) {
                return false;
            }
            for (int level = 0; level < stack.size(); level++) {
                Frame frame = stack.get(level);
                if (!frame.isObject || !partitionKeyPath.get(level).equals(frame.field)) {
                    return false;
                }
            }
            return true;
        }

        private String checkId(JsonNode value) {
            if (!value.isTextual()) {
                throw failure("has an id that is not a string", null);
            }
            String candidate = value.textValue();
            int bytes = candidate.getBytes(StandardCharsets.UTF_8).length;
            if (bytes == 0) {
                throw failure("has an empty id", null);
            }
            if (bytes > MAX_ID_BYTES) {
                throw failure("has an id of " + bytes + " bytes, over the limit of " + MAX_ID_BYTES, null);
            }
            for (char forbidden : new char[] {'/', '\\', '?', '#'}) {
                if (candidate.indexOf(forbidden) >= 0) {
                    throw failure("has the id '" + candidate + "', which contains '" + forbidden
                            + "': an id must not contain / \\ ? or #", null);
                }
            }
            return candidate;
        }

        private Integer checkTtl(JsonNode value) {
            if (value.isIntegralNumber() && value.canConvertToInt()) {
                int seconds = value.intValue();
                if (seconds == -1 || seconds > 0) {
                    return seconds;
                }
            }
            throw failure("has ttl " + abbreviate(value.toString())
                    + ": an item's ttl is -1 (never expire) or 1 to 2147483647 seconds", null);
        }

        private void checkSurrogates(CharSequence text, String what) {
            for (int index = 0; index < text.length(); index++) {
                char c = text.charAt(index);
                if (Character.isHighSurrogate(c) && index + 1 < text.length()
                        && Character.isLowSurrogate(text.charAt(index + 1))) {
                    index++;
                }
                else if (Character.isSurrogate(c)) {
                    throw failure("has a " + what + " with an unpaired UTF-16 surrogate \\u"
                            + Integer.toHexString(c).toUpperCase(java.util.Locale.ROOT)
                            + ", which cannot be represented in UTF-8", null);
                }
            }
        }

        StoreException failure(String rule, Throwable cause) {
            String item = id == null ? "an item" : "item '" + id + "'";
            String where = stack.isEmpty() ? "" : " at " + path();
            return new StoreException(StoreErrorCode.BAD_REQUEST,
                    "Cannot write " + item + " to container " + container + where + ": the document " + rule, cause);
        }

        private String path() {
            StringBuilder path = new StringBuilder();
            for (Frame frame : stack) {
                if (frame.isObject) {
                    if (frame.field != null) {
                        path.append('/').append(JsonPointer.escape(frame.field));
                    }
                }
                else {
                    path.append('/').append(frame.index);
                }
            }
            return path.length() == 0 ? "/" : path.toString();
        }
    }

    /** Numbers may run to two million digits; a message shows the first forty. */
    private static String abbreviate(String text) {
        return text.length() > 40 ? text.substring(0, 40) + "..." : text;
    }

    private static String describe(JsonToken token) {
        return switch (token) {
            case START_ARRAY -> "an array";
            case VALUE_STRING -> "a string";
            case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "a number";
            case VALUE_TRUE, VALUE_FALSE -> "a boolean";
            case VALUE_NULL -> "null";
            default -> token.asString() == null ? token.name() : "'" + token.asString() + "'";
        };
    }

    private static final class Frame {
        final PropertyNames names = new PropertyNames();
        boolean isObject;
        String field;
        int index;

        void open(boolean isObject) {
            this.isObject = isObject;
            names.clear();
            field = null;
            index = 0;
        }
    }

    /** The property names of one object so far: scanned while there are few, hashed once there are many. */
    private static final class PropertyNames {
        private static final int SCANNED = 16;
        private final String[] few = new String[SCANNED];
        private int count;
        private Set<String> many;

        /** @return false if the object already has the name */
        boolean add(String name) {
            if (many != null) {
                return many.add(name);
            }
            for (int index = 0; index < count; index++) {
                if (few[index].equals(name)) {
                    return false;
                }
            }
            if (count < SCANNED) {
                few[count++] = name;
                return true;
            }
            many = new HashSet<>(Arrays.asList(few));
            return many.add(name);
        }

        void clear() {
            Arrays.fill(few, 0, count, null);
            count = 0;
            many = null;
        }
    }
}
