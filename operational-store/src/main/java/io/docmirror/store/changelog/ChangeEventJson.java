package io.docmirror.store.changelog;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.docmirror.store.StoreJson;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * The JSON form of a {@link ChangeEvent}, the same in the store's change log, over HTTP and on Kafka:
 * <pre>{"container":"orders","partitionKey":"c-1","id":"o-9","operation":"REPLACE","lsn":42,
 *  "ts":1767225600000,"ttlExpired":false,"document":{...},"previous":{...}}</pre>
 * {@code document} and {@code previous} are left out when absent.
 */
public final class ChangeEventJson {
    private static final byte[] DOCUMENT_FIELD = ",\"document\":".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] PREVIOUS_FIELD = ",\"previous\":".getBytes(StandardCharsets.US_ASCII);

    private ChangeEventJson() {
    }

    public static byte[] toJson(ChangeEvent event) {
        return encode(event.container(), event.partitionKey(), event.id(), event.operation(), event.lsn(), event.ts(),
                event.ttlExpired(),
                event.document().map(ChangeEventJson::bytes).orElse(null),
                event.previous().map(ChangeEventJson::bytes).orElse(null));
    }

    /**
     * Encodes an event whose documents are already JSON bytes, copying them verbatim (so numbers keep the exact
     * text they were written with).
     *
     * @param document the item's JSON after the change, or null
     * @param previous the item's JSON before the change, or null
     */
    public static byte[] encode(String container, JsonNode partitionKey, String id, Operation operation, long lsn,
            long ts, boolean ttlExpired, byte[] document, byte[] previous) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(128
                + (document == null ? 0 : document.length) + (previous == null ? 0 : previous.length));
        try (JsonGenerator generator = StoreJson.mapper().getFactory().createGenerator(out, JsonEncoding.UTF8)) {
            // The generator writes the metadata; the documents are appended as bytes after it, unparsed.
            generator.disable(JsonGenerator.Feature.AUTO_CLOSE_JSON_CONTENT);
            generator.writeStartObject();
            generator.writeStringField("container", container);
            generator.writeFieldName("partitionKey");
            generator.writeTree(partitionKey);
            generator.writeStringField("id", id);
            generator.writeStringField("operation", operation.name());
            generator.writeNumberField("lsn", lsn);
            generator.writeNumberField("ts", ts);
            generator.writeBooleanField("ttlExpired", ttlExpired);
            generator.flush();
        }
        catch (IOException e) {
            throw new UncheckedIOException("Cannot encode change event " + container + "/" + id, e);
        }
        if (document != null) {
            out.writeBytes(DOCUMENT_FIELD);
            out.writeBytes(document);
        }
        if (previous != null) {
            out.writeBytes(PREVIOUS_FIELD);
            out.writeBytes(previous);
        }
        out.write('}');
        return out.toByteArray();
    }

    /**
     * @throws IllegalArgumentException when the bytes are not a change event
     */
    public static ChangeEvent fromJson(byte[] json) {
        JsonNode node;
        try {
            node = StoreJson.mapper().readTree(json);
        }
        catch (IOException e) {
            throw new IllegalArgumentException("Cannot parse change event: " + e.getMessage(), e);
        }
        return fromTree(node);
    }

    public static ChangeEvent fromTree(JsonNode node) {
        if (node == null || !node.isObject()) {
            throw new IllegalArgumentException("Cannot parse change event: not a JSON object");
        }
        return new ChangeEvent(
                required(node, "container").asText(),
                required(node, "partitionKey"),
                required(node, "id").asText(),
                Operation.valueOf(required(node, "operation").asText()),
                required(node, "lsn").asLong(),
                required(node, "ts").asLong(),
                node.path("ttlExpired").asBoolean(false),
                optionalObject(node, "document"),
                optionalObject(node, "previous"));
    }

    private static JsonNode required(JsonNode node, String field) {
        JsonNode value = node.get(field);
        if (value == null) {
            throw new IllegalArgumentException("Cannot parse change event: field '" + field + "' is missing");
        }
        return value;
    }

    private static Optional<ObjectNode> optionalObject(JsonNode node, String field) {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            return Optional.empty();
        }
        if (!value.isObject()) {
            throw new IllegalArgumentException("Cannot parse change event: field '" + field + "' is not an object");
        }
        return Optional.of((ObjectNode) value);
    }

    private static byte[] bytes(JsonNode node) {
        try {
            return StoreJson.mapper().writeValueAsBytes(node);
        }
        catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
