package io.docmirror.store;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import static java.util.Objects.requireNonNull;

/**
 * An item's partition key value as a change event carries it to other modules and a mirror stores it in its
 * {@code _pk} column: the value spelled as the item wrote it, numbers never rounded ({@code 1.10} stays {@code 1.10},
 * {@code 12345678901234567890} keeps all its digits), and {@code {}} for an item without the partition key property.
 *
 * <p>Two values are equal when their {@link #jsonText()} is: a mirror finds its rows by that text. The store's own
 * {@link PartitionKey} compares by value instead ({@code 10} and {@code 10.0} are one key, as in Cosmos DB), and
 * {@link #toPartitionKey()} gives it, for instance to choose the key's log partition.
 */
public final class PartitionKeyValue {
    /** The value of an item that lacks the partition key property: {@code {}}. */
    public static final PartitionKeyValue NONE = new PartitionKeyValue(null);

    /** A scalar JSON node (immutable), or null for {@link #NONE}. */
    private final JsonNode value;
    /** {@link #jsonText()}, written on first use: a consumer that only forwards an event never needs it. */
    private String jsonText;

    private PartitionKeyValue(JsonNode value) {
        this.value = value;
    }

    /**
     * The value a change event carries as JSON: a string, number, boolean or null, or {@code {}} for none.
     *
     * @throws IllegalArgumentException when the value is an array or an object other than {@code {}}
     */
    public static PartitionKeyValue of(JsonNode value) {
        requireNonNull(value, "value is null");
        if (value.isMissingNode() || value.isObject() && value.isEmpty()) {
            return NONE;
        }
        if (value.isContainerNode()) {
            throw new IllegalArgumentException("a partition key value is a string, number, boolean or null, or {} "
                    + "for none, not " + value);
        }
        return new PartitionKeyValue(value);
    }

    /** The value of the store's key, as the key spells it. */
    public static PartitionKeyValue of(PartitionKey key) {
        return key.isNone() ? NONE : of(key.toJson());
    }

    /**
     * The value whose {@link #jsonText()} this is, such as a mirror's {@code _pk} column holds.
     *
     * @throws IllegalArgumentException when the text is not such a value
     */
    public static PartitionKeyValue parse(String jsonText) {
        JsonNode value = PartitionKey.readStrictly(jsonText);
        if (value == null || value.isMissingNode()) {
            throw new IllegalArgumentException("a partition key value is never empty text");
        }
        return of(value);
    }

    /**
     * The value's JSON text, in the one form every module uses: what the store writes in its change log and a mirror
     * in its {@code _pk} column. Numbers keep the text the item was written with.
     */
    public String jsonText() {
        String text = jsonText;
        if (text == null) {
            // A race only computes the same text twice: the node never changes.
            text = value == null ? "{}" : value.toString();
            jsonText = text;
        }
        return text;
    }

    /** The value as JSON, {@code {}} for {@link #NONE}; a new object each time for that one, which is mutable. */
    public JsonNode toJson() {
        return value == null ? new ObjectNode(JsonNodeFactory.instance) : value;
    }

    /** The store's key for this value, equal for {@code 10} and {@code 10.0}. */
    public PartitionKey toPartitionKey() {
        return value == null ? PartitionKey.NONE : PartitionKey.fromJson(value);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof PartitionKeyValue key && jsonText().equals(key.jsonText());
    }

    @Override
    public int hashCode() {
        return jsonText().hashCode();
    }

    /** The {@link #jsonText()}. */
    @Override
    public String toString() {
        return jsonText();
    }
}
