package io.docmirror.store.http;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.docmirror.store.BatchResult;
import io.docmirror.store.BulkOperation;
import io.docmirror.store.ChangeLogPage;
import io.docmirror.store.Item;
import io.docmirror.store.PartitionKey;
import io.docmirror.store.SnapshotPage;
import io.docmirror.store.StoreJson;
import io.docmirror.store.changelog.ChangeEventJson;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * JSON shapes of the HTTP API that carry items (see docs/http-api.md). An item in a list is an envelope whose
 * {@code document} is the stored JSON copied verbatim:
 * <pre>{"id":"o1","partitionKey":"c1","etag":"\"1-0-2a\"","lsn":42,"document":{...}}</pre>
 */
public final class WireFormat {
    public static final String PARTITION_KEY_HEADER = "x-ms-documentdb-partitionkey";
    public static final String UPSERT_HEADER = "x-ms-documentdb-is-upsert";
    public static final String LSN_HEADER = "x-docmirror-lsn";

    private WireFormat() {
    }

    public static void writeItem(JsonGenerator generator, Item item) throws IOException {
        generator.writeStartObject();
        generator.writeStringField("id", item.id());
        generator.writeFieldName("partitionKey");
        generator.writeTree(item.partitionKey().toJson());
        generator.writeStringField("etag", item.etag());
        generator.writeNumberField("lsn", item.lsn());
        generator.writeFieldName("document");
        generator.writeRawValue(item.json());
        generator.writeEndObject();
    }

    public static Item readItem(JsonNode envelope) {
        return new Item(envelope.get("id").asText(), readPartitionKey(envelope.get("partitionKey")),
                envelope.get("etag").asText(), envelope.get("lsn").asLong(), envelope.get("document").toString());
    }

    /** A partition key value as JSON: the value itself, or {@code {}} for an item stored without one. */
    public static PartitionKey readPartitionKey(JsonNode partitionKey) {
        return partitionKey.isObject() && partitionKey.isEmpty() ? PartitionKey.NONE : PartitionKey.fromJson(partitionKey);
    }

    /** {@code {"operations":[{"partitionKey":"c1","type":"replace","id":"o1","document":"...","ifMatch":"..."}]}} */
    public static byte[] bulkOperations(List<BulkOperation> operations) {
        ObjectNode body = StoreJson.mapper().createObjectNode();
        ArrayNode array = body.putArray("operations");
        for (BulkOperation operation : operations) {
            ObjectNode node = array.addObject();
            node.set("partitionKey", operation.partitionKey().toJson());
            node.setAll((ObjectNode) StoreJson.mapper().valueToTree(operation.operation()));
        }
        return body.toString().getBytes(StandardCharsets.UTF_8);
    }

    public static byte[] items(String field, List<Item> items, Extra extra) {
        return write(generator -> {
            generator.writeStartObject();
            generator.writeArrayFieldStart(field);
            for (Item item : items) {
                writeItem(generator, item);
            }
            generator.writeEndArray();
            extra.write(generator);
            generator.writeEndObject();
        });
    }

    /** {@code {"logPartition":0,"logStartLsn":0,"logEndLsn":1234,"events":[<change event>...]}} */
    public static byte[] changeLogPage(ChangeLogPage page) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(("{\"logPartition\":" + page.logPartition() + ",\"logStartLsn\":" + page.logStartLsn()
                + ",\"logEndLsn\":" + page.logEndLsn() + ",\"events\":[").getBytes(StandardCharsets.UTF_8));
        for (int index = 0; index < page.events().size(); index++) {
            if (index > 0) {
                out.write(',');
            }
            out.writeBytes(ChangeEventJson.toJson(page.events().get(index)));
        }
        out.writeBytes("]}".getBytes(StandardCharsets.UTF_8));
        return out.toByteArray();
    }

    /** {@code {"continuation":"<last key read> or null","expiresAt":"<instant>","events":[<change event>...]}} */
    public static byte[] snapshotPage(SnapshotPage page, Instant expiresAt) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] fields = write(generator -> {
            generator.writeStartObject();
            generator.writeStringField("continuation", page.continuation().orElse(null));
            generator.writeStringField("expiresAt", expiresAt.toString());
            generator.writeEndObject();
        });
        // The fields' object without its closing brace, then the events, each as the change log writes it.
        out.write(fields, 0, fields.length - 1);
        out.writeBytes(",\"events\":[".getBytes(StandardCharsets.UTF_8));
        for (int index = 0; index < page.events().size(); index++) {
            if (index > 0) {
                out.write(',');
            }
            out.writeBytes(ChangeEventJson.toJson(page.events().get(index)));
        }
        out.writeBytes("]}".getBytes(StandardCharsets.UTF_8));
        return out.toByteArray();
    }

    public static List<Item> readItems(JsonNode array) {
        List<Item> items = new ArrayList<>();
        array.forEach(node -> items.add(readItem(node)));
        return items;
    }

    public static byte[] operationResults(List<BatchResult.OperationResult> results) {
        return write(generator -> {
            generator.writeStartObject();
            generator.writeArrayFieldStart("results");
            for (BatchResult.OperationResult operation : results) {
                generator.writeStartObject();
                generator.writeNumberField("status", operation.status());
                if (operation.etag() != null) {
                    generator.writeStringField("etag", operation.etag());
                }
                if (operation.item() != null) {
                    generator.writeFieldName("item");
                    writeItem(generator, operation.item());
                }
                if (operation.message() != null) {
                    generator.writeStringField("message", operation.message());
                }
                generator.writeEndObject();
            }
            generator.writeEndArray();
            generator.writeEndObject();
        });
    }

    public static List<BatchResult.OperationResult> readOperationResults(JsonNode node) {
        List<BatchResult.OperationResult> results = new ArrayList<>();
        for (JsonNode result : node.get("results")) {
            results.add(new BatchResult.OperationResult(result.get("status").asInt(),
                    result.hasNonNull("etag") ? result.get("etag").asText() : null,
                    result.hasNonNull("item") ? readItem(result.get("item")) : null,
                    result.hasNonNull("message") ? result.get("message").asText() : null));
        }
        return results;
    }

    public static byte[] error(int status, String code, String message) {
        return write(generator -> {
            generator.writeStartObject();
            generator.writeStringField("code", code);
            generator.writeNumberField("status", status);
            generator.writeStringField("message", message);
            generator.writeEndObject();
        });
    }

    public static byte[] write(Extra body) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JsonGenerator generator = StoreJson.mapper().getFactory().createGenerator(out, JsonEncoding.UTF8)) {
            body.write(generator);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    public static String utf8(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /** Writes more of a JSON body. */
    @FunctionalInterface
    public interface Extra {
        Extra NONE = generator -> { };

        void write(JsonGenerator generator) throws IOException;
    }
}
