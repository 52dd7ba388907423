package io.docmirror.store.internal;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.docmirror.store.PartitionKey;
import io.docmirror.store.PartitionKeyValue;
import io.docmirror.store.StoreJson;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * A stored item's partition key value as its document spells it. The store keys items by value, so a storage key
 * holds a number only as its canonical decimal ({@code 100}, {@code 1e2} and {@code 100.0} are all {@code 1E+2}), while
 * change events and snapshots carry the item's own spelling, which mirrors store: a number is read from the document.
 * A string, boolean, null or missing value reads back exactly from the key, without touching the document.
 */
final class PartitionKeySpelling {
    private final String container;
    private final List<String> path;

    /** @param partitionKeyPath the container's partition key path, e.g. {@code /customer/id} */
    PartitionKeySpelling(String container, String partitionKeyPath) {
        this.container = container;
        this.path = JsonPointer.parse(partitionKeyPath);
    }

    /** The value of {@code key} as the item's stored {@code json} spells it. */
    PartitionKeyValue of(PartitionKey key, String id, byte[] json) {
        if (!key.toJson().isNumber()) {
            return PartitionKeyValue.of(key);
        }
        try (JsonParser parser = StoreJson.mapper().getFactory().createParser(json)) {
            JsonToken token = parser.nextToken();
            for (String field : path) {
                token = token == JsonToken.START_OBJECT && skipTo(parser, field) ? parser.nextToken() : null;
            }
            if (token == JsonToken.VALUE_NUMBER_INT || token == JsonToken.VALUE_NUMBER_FLOAT) {
                // The parser's text of a number is the document's, character for character.
                return PartitionKeyValue.of(StoreJson.numberNode(parser.getText()));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read the partition key of item '" + id + "' of container "
                    + container + " from its stored document", e);
        }
        throw new IllegalStateException("Item '" + id + "' of container " + container + " is stored under partition "
                + "key " + key.toWire() + ", which its stored document does not hold at " + JsonPointer.format(path));
    }

    /** Moves the parser within the object it stands on to the name {@code field}; false at the object's end. */
    private static boolean skipTo(JsonParser parser, String field) throws IOException {
        while (parser.nextToken() == JsonToken.FIELD_NAME) {
            if (parser.currentName().equals(field)) {
                return true;
            }
            parser.nextToken();
            parser.skipChildren();
        }
        return false;
    }
}
