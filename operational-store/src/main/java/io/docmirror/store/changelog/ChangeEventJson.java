package io.docmirror.store.changelog;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.docmirror.store.PartitionKeyValue;
import io.docmirror.store.StoreJson;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

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
                event.ttlExpired(), event.documentJson().orElse(null), event.previousJson().orElse(null));
    }

    /**
     * Encodes an event whose documents are already JSON bytes, copying them verbatim (so numbers keep the exact
     * text they were written with).
     *
     * @param document the item's JSON after the change, or null
     * @param previous the item's JSON before the change, or null
     */
    public static byte[] encode(String container, PartitionKeyValue partitionKey, String id, Operation operation,
            long lsn, long ts, boolean ttlExpired, byte[] document, byte[] previous) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(128
                + (document == null ? 0 : document.length) + (previous == null ? 0 : previous.length));
        try (JsonGenerator generator = StoreJson.mapper().getFactory().createGenerator(out, JsonEncoding.UTF8)) {
            // The generator writes the metadata; the documents are appended as bytes after it, unparsed.
            generator.disable(JsonGenerator.Feature.AUTO_CLOSE_JSON_CONTENT);
            generator.writeStartObject();
            generator.writeStringField("container", container);
            generator.writeFieldName("partitionKey");
            generator.writeTree(partitionKey.toJson());
            generator.writeStringField("id", id);
            generator.writeStringField("operation", operation.name());
            generator.writeNumberField("lsn", lsn);
            generator.writeNumberField("ts", ts);
            generator.writeBooleanField("ttlExpired", ttlExpired);
            generator.flush();
        } catch (IOException e) {
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
     * Decodes an event with a streaming parser: the metadata is read, the documents are kept as the byte ranges they
     * occupy and parsed only when a consumer asks for them ({@link ChangeEvent#document()}).
     *
     * @throws IllegalArgumentException when the bytes are not a change event
     */
    public static ChangeEvent fromJson(byte[] json) {
        try (JsonParser parser = StoreJson.mapper().getFactory().createParser(json)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                throw new IllegalArgumentException("Cannot parse change event: not a JSON object");
            }
            String container = null;
            PartitionKeyValue partitionKey = null;
            String id = null;
            Operation operation = null;
            Long lsn = null;
            Long ts = null;
            boolean ttlExpired = false;
            DocumentImage document = null;
            DocumentImage previous = null;
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                String field = parser.currentName();
                JsonToken value = parser.nextToken();
                switch (field) {
                    case "container" -> container = parser.getValueAsString();
                    case "partitionKey" -> partitionKey = partitionKey(parser.readValueAsTree());
                    case "id" -> id = parser.getValueAsString();
                    case "operation" -> operation = Operation.valueOf(parser.getValueAsString());
                    case "lsn" -> lsn = parser.getValueAsLong();
                    case "ts" -> ts = parser.getValueAsLong();
                    case "ttlExpired" -> ttlExpired = parser.getValueAsBoolean();
                    case "document" -> document = documentImage(parser, value, json, field);
                    case "previous" -> previous = documentImage(parser, value, json, field);
                    default -> parser.skipChildren();
                }
            }
            return new ChangeEvent(required(container, "container"), required(partitionKey, "partitionKey"),
                    required(id, "id"), required(operation, "operation"), required(lsn, "lsn"), required(ts, "ts"),
                    ttlExpired, document, previous);
        } catch (IOException e) {
            throw new IllegalArgumentException("Cannot parse change event: " + e.getMessage(), e);
        }
    }

    /** The byte range of the object the parser stands on, skipped over without building anything. */
    private static DocumentImage documentImage(JsonParser parser, JsonToken value, byte[] json, String field)
            throws IOException {
        if (value == JsonToken.VALUE_NULL) {
            return null;
        }
        if (value != JsonToken.START_OBJECT) {
            throw new IllegalArgumentException("Cannot parse change event: field '" + field + "' is not an object");
        }
        int start = (int) parser.currentTokenLocation().getByteOffset();
        parser.skipChildren();
        int end = (int) parser.currentLocation().getByteOffset();
        return DocumentImage.ofJson(Arrays.copyOfRange(json, start, end));
    }

    private static <T> T required(T value, String field) {
        if (value == null) {
            throw new IllegalArgumentException("Cannot parse change event: field '" + field + "' is missing");
        }
        return value;
    }

    public static ChangeEvent fromTree(JsonNode node) {
        if (node == null || !node.isObject()) {
            throw new IllegalArgumentException("Cannot parse change event: not a JSON object");
        }
        return new ChangeEvent(
                field(node, "container").asText(),
                partitionKey(field(node, "partitionKey")),
                field(node, "id").asText(),
                Operation.valueOf(field(node, "operation").asText()),
                field(node, "lsn").asLong(),
                field(node, "ts").asLong(),
                node.path("ttlExpired").asBoolean(false),
                image(node, "document"),
                image(node, "previous"));
    }

    /** The value, or null for none read (which {@link #required} reports). */
    private static PartitionKeyValue partitionKey(JsonNode value) {
        if (value == null) {
            return null;
        }
        try {
            return PartitionKeyValue.of(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("Cannot parse change event: " + e.getMessage(), e);
        }
    }

    private static JsonNode field(JsonNode node, String field) {
        return required(node.get(field), field);
    }

    /** The image in {@code field}, or null when the event has none. */
    private static DocumentImage image(JsonNode node, String field) {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isObject()) {
            throw new IllegalArgumentException("Cannot parse change event: field '" + field + "' is not an object");
        }
        return DocumentImage.ofTree((ObjectNode) value);
    }
}
