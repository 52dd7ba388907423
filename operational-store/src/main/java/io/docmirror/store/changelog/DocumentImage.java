package io.docmirror.store.changelog;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.docmirror.store.StoreJson;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import static java.util.Objects.requireNonNull;

/**
 * One image of an item in a change event, held as JSON bytes or as a tree, whichever it arrived as, and turned into
 * the other only when someone asks. An event read from the log holds the bytes the store wrote: consumers that forward
 * events (HTTP, Kafka) copy them and never parse; the mirror parses each document once.
 */
final class DocumentImage {
    // At least one of the two is set. Racing threads may each convert once; the results are equal and either may win.
    private volatile byte[] json;
    private volatile ObjectNode tree;

    private DocumentImage(byte[] json, ObjectNode tree) {
        this.json = json;
        this.tree = tree;
    }

    /** @param json a JSON object; the image keeps the array, so the caller must not change it afterwards */
    static DocumentImage ofJson(byte[] json) {
        return new DocumentImage(requireNonNull(json, "json is null"), null);
    }

    static DocumentImage ofTree(ObjectNode tree) {
        return new DocumentImage(null, requireNonNull(tree, "tree is null"));
    }

    /** The JSON bytes; shared, not copied, so callers must not modify them. */
    byte[] json() {
        byte[] serialised = json;
        if (serialised == null) {
            try {
                serialised = StoreJson.mapper().writeValueAsBytes(tree);
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot serialise a document", e);
            }
            json = serialised;
        }
        return serialised;
    }

    /**
     * @throws IllegalArgumentException when the bytes are not a JSON object (only possible for a corrupt log entry)
     */
    ObjectNode tree() {
        ObjectNode parsed = tree;
        if (parsed == null) {
            parsed = parse(json);
            tree = parsed;
        }
        return parsed;
    }

    private static ObjectNode parse(byte[] json) {
        JsonNode node;
        try {
            node = StoreJson.mapper().readTree(json);
        } catch (IOException e) {
            throw new IllegalArgumentException("Cannot parse a document of a change event: " + e.getMessage(), e);
        }
        if (node == null || !node.isObject()) {
            throw new IllegalArgumentException("A document of a change event is not a JSON object");
        }
        return (ObjectNode) node;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof DocumentImage image
                && (Arrays.equals(json(), image.json()) || tree().equals(image.tree()));
    }

    @Override
    public int hashCode() {
        return tree().hashCode();
    }

    @Override
    public String toString() {
        return new String(json(), StandardCharsets.UTF_8);
    }
}
