package io.docmirror.mirror.reconcile;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.docmirror.store.StoreJson;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Iterator;
import java.util.TreeSet;

/** Where two documents first differ, in words a reader can act on: a JSON path and the two values found there. */
final class DocumentDifference {
    private static final int SHOWN_CHARACTERS = 200;

    private DocumentDifference() {
    }

    /** @param store the store's document and {@code mirror} the mirror's, both {@link CanonicalJson} texts */
    static String first(String store, String mirror) {
        String found = first("$", read(store), read(mirror));
        return found != null ? found
                : "the documents differ: the store has " + shown(store) + ", the mirror " + shown(mirror);
    }

    private static String first(String path, JsonNode store, JsonNode mirror) {
        if (store == null || mirror == null) {
            return path + ": " + (store == null ? "missing in the store, the mirror has " + shown(text(mirror))
                    : "the store has " + shown(text(store)) + ", missing in the mirror");
        }
        if (store.isObject() && mirror.isObject()) {
            TreeSet<String> names = new TreeSet<>();
            store.fieldNames().forEachRemaining(names::add);
            mirror.fieldNames().forEachRemaining(names::add);
            for (String name : names) {
                String found = first(path + "." + name, store.get(name), mirror.get(name));
                if (found != null) {
                    return found;
                }
            }
            return null;
        }
        if (store.isArray() && mirror.isArray()) {
            Iterator<JsonNode> left = store.elements();
            Iterator<JsonNode> right = mirror.elements();
            for (int index = 0; left.hasNext() || right.hasNext(); index++) {
                String found = first(path + "[" + index + "]", left.hasNext() ? left.next() : null,
                        right.hasNext() ? right.next() : null);
                if (found != null) {
                    return found;
                }
            }
            return null;
        }
        if (store.equals(mirror)) {
            return null;
        }
        return path + ": the store has " + shown(text(store)) + ", the mirror " + shown(text(mirror));
    }

    /**
     * A canonical document as a tree whose leaves are their canonical text, so that values compare as spelled there
     * ({@code -0} is not {@code 0}).
     */
    private static JsonNode read(String json) {
        try (JsonParser parser = StoreJson.mapper().getFactory().createParser(json)) {
            parser.nextToken();
            return read(parser);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read a canonical document: " + e.getMessage(), e);
        }
    }

    private static JsonNode read(JsonParser parser) throws IOException {
        JsonNodeFactory nodes = JsonNodeFactory.instance;
        switch (parser.currentToken()) {
            case START_OBJECT -> {
                ObjectNode object = nodes.objectNode();
                while (parser.nextToken() == JsonToken.FIELD_NAME) {
                    String name = parser.currentName();
                    parser.nextToken();
                    object.set(name, read(parser));
                }
                return object;
            }
            case START_ARRAY -> {
                ArrayNode array = nodes.arrayNode();
                while (parser.nextToken() != JsonToken.END_ARRAY) {
                    array.add(read(parser));
                }
                return array;
            }
            case VALUE_STRING -> {
                return nodes.textNode(nodes.textNode(parser.getText()).toString());
            }
            default -> {
                return nodes.textNode(parser.getText());
            }
        }
    }

    private static String text(JsonNode node) {
        return node.isTextual() ? node.textValue() : node.toString();
    }

    private static String shown(String text) {
        return text.length() <= SHOWN_CHARACTERS ? text : text.substring(0, SHOWN_CHARACTERS) + "...";
    }
}
