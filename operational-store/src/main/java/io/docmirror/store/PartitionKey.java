package io.docmirror.store;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import static java.util.Objects.requireNonNull;

/**
 * The partition key value of an item: a JSON string, number, boolean or null, or {@link #NONE} for an item that
 * lacks the partition key property (Cosmos DB's {@code PartitionKey.None}, which is distinct from {@code null}).
 *
 * <p>Two keys are equal when their values are equal as JSON values: {@code 10} and {@code 10.0} are the same key,
 * as in Cosmos DB. On the wire (the {@code x-ms-documentdb-partitionkey} header) a key is a JSON array of one
 * element, and {@code [{}]} is {@link #NONE}, as in the Cosmos DB REST API; it is written in printable ASCII, every
 * other character as a <code>&#92;u</code> escape, as Cosmos DB writes it, because HTTP carries header values as bytes.
 */
public final class PartitionKey {
    public static final PartitionKey NONE = new PartitionKey(null);

    private static final byte TAG_NONE = 0;
    private static final byte TAG_NULL = 1;
    private static final byte TAG_FALSE = 2;
    private static final byte TAG_TRUE = 3;
    private static final byte TAG_NUMBER = 4;
    private static final byte TAG_STRING = 5;

    /** Reads the wire form strictly: {@code ["a"] junk} is not a key. */
    private static final ObjectReader WIRE_READER = StoreJson.mapper().reader()
            .with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    /** Cosmos DB's limit on the size of a partition key value (with large partition keys enabled). */
    public static final int MAX_ENCODED_BYTES = 2048;

    private final JsonNode value;
    private final byte[] encoded;

    private PartitionKey(JsonNode value) {
        this.value = value;
        this.encoded = encode(value);
    }

    public static PartitionKey of(String value) {
        return new PartitionKey(TextNode.valueOf(requireNonNull(value, "value is null")));
    }

    public static PartitionKey of(long value) {
        return new PartitionKey(JsonNodeFactory.instance.numberNode(value));
    }

    public static PartitionKey of(boolean value) {
        return new PartitionKey(BooleanNode.valueOf(value));
    }

    public static PartitionKey nullValue() {
        return new PartitionKey(NullNode.getInstance());
    }

    /**
     * The key for a JSON value taken from a document.
     *
     * @throws IllegalArgumentException when the value is an object or an array
     */
    public static PartitionKey fromJson(JsonNode value) {
        requireNonNull(value, "value is null");
        if (value.isMissingNode()) {
            return NONE;
        }
        if (value.isContainerNode()) {
            throw new IllegalArgumentException("a partition key value must be a string, number, boolean or null, not "
                    + (value.isObject() ? "an object" : "an array"));
        }
        return new PartitionKey(value);
    }

    /** The key whose {@link #toJson()} this is: what a change event carries, {@code {}} for {@link #NONE}. */
    public static PartitionKey fromToJson(JsonNode value) {
        return value.isObject() && value.isEmpty() ? NONE : fromJson(value);
    }

    /**
     * Parses the wire form: a JSON array of one value, {@code [{}]} for {@link #NONE}, with nothing after it.
     * Characters may be escaped (<code>["&#92;u65e5&#92;u672c"]</code>) or not ({@code ["日本"]}).
     *
     * @throws IllegalArgumentException when the text is not of that form
     */
    public static PartitionKey fromWire(String text) {
        JsonNode array = readStrictly(text);
        if (array == null || !array.isArray() || array.size() != 1) {
            throw new IllegalArgumentException("partition key " + text + " is not a JSON array of one value, "
                    + "such as [\"tenant-1\"] or [{}] for none");
        }
        return fromToJson(array.get(0));
    }

    /**
     * The JSON value of a partition key's text, with nothing after it; null for empty text.
     *
     * @throws IllegalArgumentException when the text is not JSON
     */
    static JsonNode readStrictly(String text) {
        try {
            return WIRE_READER.readTree(text);
        } catch (IOException e) {
            String reason = e instanceof JsonProcessingException json ? json.getOriginalMessage() : e.getMessage();
            throw new IllegalArgumentException("partition key " + text + " is not JSON: " + reason, e);
        }
    }

    /**
     * The wire form: a JSON array of one value in printable ASCII. A character outside it is written as a
     * <code>&#92;u</code> escape (a JSON writer already escapes control characters and quotes), so no value can end the
     * header line early or come back as other characters.
     */
    public String toWire() {
        ArrayNode array = JsonNodeFactory.instance.arrayNode();
        array.add(toJson());
        String json = array.toString();
        StringBuilder ascii = new StringBuilder(json.length());
        for (int index = 0; index < json.length(); index++) {
            char c = json.charAt(index);
            if (c >= 0x20 && c < 0x7F) {
                ascii.append(c);
            }
            else {
                // Outside a JSON string only ASCII occurs, so every such character is inside one, where an escape
                // means the same (a character beyond the BMP is its two surrogates, each escaped).
                ascii.append(String.format("\\u%04x", (int) c));
            }
        }
        return ascii.toString();
    }

    /** The value as JSON; {@link #NONE} is {@code {}}, as in Cosmos DB's wire form. */
    public JsonNode toJson() {
        return value == null ? new ObjectNode(JsonNodeFactory.instance) : value;
    }

    public boolean isNone() {
        return value == null;
    }

    /** A canonical byte form: equal keys have equal bytes. Used in storage keys and for hashing into log partitions. */
    public byte[] encoded() {
        return encoded.clone();
    }

    /** {@link #encoded()} without the copy, for hashing; the caller must not change the array. */
    byte[] encodedShared() {
        return encoded;
    }

    /**
     * The key whose {@link #encoded()} form these bytes are.
     *
     * @throws IllegalArgumentException when the bytes are not such a form
     */
    public static PartitionKey decode(byte[] bytes) {
        if (bytes.length == 0) {
            throw new IllegalArgumentException("an encoded partition key is never empty");
        }
        String text = new String(bytes, 1, bytes.length - 1, StandardCharsets.UTF_8);
        return switch (bytes[0]) {
            case TAG_NONE -> NONE;
            case TAG_NULL -> nullValue();
            case TAG_FALSE -> of(false);
            case TAG_TRUE -> of(true);
            case TAG_NUMBER -> new PartitionKey(JsonNodeFactory.withExactBigDecimals(true).numberNode(new BigDecimal(text)));
            case TAG_STRING -> of(text);
            default -> throw new IllegalArgumentException("unknown partition key tag " + bytes[0]);
        };
    }

    private static byte[] encode(JsonNode value) {
        if (value == null) {
            return new byte[] {TAG_NONE};
        }
        if (value.isNull()) {
            return new byte[] {TAG_NULL};
        }
        if (value.isBoolean()) {
            return new byte[] {value.booleanValue() ? TAG_TRUE : TAG_FALSE};
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        if (value.isNumber()) {
            out.write(TAG_NUMBER);
            BigDecimal decimal = exactValue(value);
            String canonical = decimal.signum() == 0 ? "0" : decimal.stripTrailingZeros().toString();
            out.writeBytes(canonical.getBytes(StandardCharsets.US_ASCII));
        }
        else if (value.isTextual()) {
            out.write(TAG_STRING);
            out.writeBytes(value.textValue().getBytes(StandardCharsets.UTF_8));
        }
        else {
            throw new IllegalArgumentException("not a partition key value: " + value);
        }
        return out.toByteArray();
    }

    /** Numbers are keyed by value, so {@code 10} and {@code 10.0} are one key; a key must have an exact value. */
    private static BigDecimal exactValue(JsonNode number) {
        try {
            return number.decimalValue();
        } catch (NumberFormatException e) {
            String text = number.asText();
            throw new IllegalArgumentException("a partition key number needs an exact decimal value, which "
                    + (text.length() > 40 ? text.substring(0, 40) + "..." : text) + " has not: its exponent is out "
                    + "of range", e);
        }
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof PartitionKey key && Arrays.equals(encoded, key.encoded);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(encoded);
    }

    @Override
    public String toString() {
        return toWire();
    }
}
