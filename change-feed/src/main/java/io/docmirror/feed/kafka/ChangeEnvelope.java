package io.docmirror.feed.kafka;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.PartitionKeyValue;
import io.docmirror.store.StoreJson;
import io.docmirror.store.changelog.ChangeEvent;
import io.docmirror.store.changelog.Operation;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * A change as a Kafka record in the shape of Debezium's change events, which Kafka Connect, Debezium's transforms
 * and sinks, and any JSON consumer read (README, "Kafka events"):
 * <pre>key   {"id":"o-9","partitionKey":"\"c-1\""}
 * value {"before":{"document":"{…}"},"after":{"document":"{…}"},"source":{"version":"1","connector":"docmirror","name":"docmirror",
 *        "ts_ms":1767225600000,"snapshot":"false","container":"orders","id":"o-9","partitionKey":"\"c-1\"",
 *        "feedRange":2,"lsn":42,"ttlExpired":false,"containerRid":"AAAAAg"},"op":"u","ts_ms":1767225600125}</pre>
 * {@code before} and {@code after} hold the item's JSON in a string, {@code document}, exactly as the store wrote
 * it, and the partition key is JSON text too: JSON numbers read by a consumer as longs or doubles (Connect's
 * {@code JsonConverter} does) would wrap or round, a string never does ({@link EnvelopeSchemas} says why the Connect
 * schema holds strings, in structs). With
 * {@code kafka.connect-schemas} the key and the value are each wrapped as {@code {"schema":…,"payload":…}}; the
 * payload is the same. A delete's record is followed by a tombstone (same key, no value) that the publisher writes.
 * {@code source.containerRid}, the container's {@code _rid}, tells a container from an earlier one of the same name
 * (deleted and created again) whose changes the topic still holds; events of earlier versions have none.
 *
 * <p>{@code before} is the item before the change where the store's log kept it (replaces and deletes read in all
 * versions and deletes mode), else null, as with Debezium connectors that have no full before image. {@code op} is
 * {@code c}, {@code u} (an upsert of an existing item and a patch too) or {@code d}; never {@code r}: the publisher
 * publishes the change log from its beginning, not a snapshot.
 */
public final class ChangeEnvelope {
    /** The version of this format, in each event's {@code source.version}. */
    static final String FORMAT_VERSION = "1";
    private static final String CONNECTOR = "docmirror";

    private final ContainerProperties container;
    private final String logicalName;
    private final Optional<EnvelopeSchemas> schemas;

    /** The envelope of one container's topic, with the schemas when {@code config.connectSchemas()}. */
    public ChangeEnvelope(KafkaBridgeConfig config, ContainerProperties container) {
        requireNonNull(config, "config is null");
        this.container = requireNonNull(container, "container is null");
        this.logicalName = logicalName(config.topicPrefix());
        this.schemas = config.connectSchemas()
                ? Optional.of(EnvelopeSchemas.forTopic(config.topic(container.id())))
                : Optional.empty();
    }

    /** The record key: the item's id and partition key, with the key schema when the envelope carries schemas. */
    public byte[] key(ChangeEvent event) {
        return write(event, schemas.map(EnvelopeSchemas::key), generator -> writeKeyPayload(generator, event));
    }

    /**
     * The key without any schema, the same with and without {@code kafka.connect-schemas}: the publisher chooses an
     * item's partition from it, so switching the option never moves an item's changes to another partition.
     */
    public static byte[] keyPayload(ChangeEvent event) {
        return write(event, Optional.empty(), generator -> writeKeyPayload(generator, event));
    }

    /**
     * The record value.
     *
     * @param processedAt when the publisher handled the change, epoch milliseconds (the envelope's {@code ts_ms};
     *     {@code source.ts_ms} is when the store committed it)
     */
    public byte[] value(ChangeEvent event, long processedAt) {
        int feedRange = container.logPartitionOf(event.partitionKey().toPartitionKey());
        return write(event, schemas.map(EnvelopeSchemas::value), generator -> {
            generator.writeStartObject();
            writeImage(generator, "before", event.previousJson());
            writeImage(generator, "after", event.documentJson());
            generator.writeObjectFieldStart("source");
            generator.writeStringField("version", FORMAT_VERSION);
            generator.writeStringField("connector", CONNECTOR);
            generator.writeStringField("name", logicalName);
            generator.writeNumberField("ts_ms", event.ts());
            generator.writeStringField("snapshot", "false");
            generator.writeStringField("container", event.container());
            generator.writeStringField("id", event.id());
            generator.writeStringField("partitionKey", event.partitionKey().jsonText());
            generator.writeNumberField("feedRange", feedRange);
            generator.writeNumberField("lsn", event.lsn());
            generator.writeBooleanField("ttlExpired", event.ttlExpired());
            if (container.resourceId() != null) {
                generator.writeStringField("containerRid", container.resourceId());
            }
            generator.writeEndObject();
            generator.writeStringField("op", operationCode(event.operation()));
            generator.writeNumberField("ts_ms", processedAt);
            generator.writeEndObject();
        });
    }

    /**
     * A change as a record value holds it, and the {@code _rid} of the container it was published from.
     *
     * @param containerRid null for an event an earlier version published, without it
     */
    public record Published(ChangeEvent event, String containerRid) {
        public Published {
            requireNonNull(event, "event is null");
        }
    }

    /**
     * The change a record value holds, with or without its schema; the documents keep the exact text they were
     * published with.
     *
     * @throws IllegalArgumentException naming the field, when the value is not a change envelope
     */
    public static ChangeEvent fromValue(byte[] value) {
        return read(value).event();
    }

    /**
     * The change a record value holds and the container it came from.
     *
     * @throws IllegalArgumentException naming the field, when the value is not a change envelope
     */
    public static Published read(byte[] value) {
        JsonNode root;
        try {
            root = StoreJson.mapper().readTree(value);
        } catch (IOException e) {
            throw new IllegalArgumentException("Cannot read change envelope: not JSON: " + e.getMessage(), e);
        }
        if (root == null || !root.isObject()) {
            throw new IllegalArgumentException("Cannot read change envelope: not a JSON object");
        }
        JsonNode payload = root.has("schema") && root.has("payload") ? root.get("payload") : root;
        JsonNode source = required(payload, "source", "source");
        ChangeEvent event = ChangeEvent.ofJson(
                required(source, "container", "source.container").asText(),
                partitionKey(required(source, "partitionKey", "source.partitionKey"), "source.partitionKey"),
                required(source, "id", "source.id").asText(),
                operation(required(payload, "op", "op").asText()),
                required(source, "lsn", "source.lsn").asLong(),
                required(source, "ts_ms", "source.ts_ms").asLong(),
                source.path("ttlExpired").asBoolean(false),
                imageJson(payload.get("after"), "after"),
                imageJson(payload.get("before"), "before"));
        JsonNode containerRid = source.get("containerRid");
        return new Published(event, containerRid == null || containerRid.isNull() ? null : containerRid.asText());
    }

    /** Debezium's operation code of an operation. */
    static String operationCode(Operation operation) {
        return switch (operation) {
            case CREATE -> "c";
            case REPLACE -> "u";
            case DELETE -> "d";
        };
    }

    private static Operation operation(String code) {
        return switch (code) {
            case "c" -> Operation.CREATE;
            case "u" -> Operation.REPLACE;
            case "d" -> Operation.DELETE;
            default -> throw new IllegalArgumentException("Cannot read change envelope: op '" + code
                    + "' is not one docmirror publishes (c, u or d)");
        };
    }

    /** Debezium's logical server name, which prefixes its topics: ours is the topic prefix without its dot. */
    private static String logicalName(String topicPrefix) {
        String name = topicPrefix.endsWith(".") ? topicPrefix.substring(0, topicPrefix.length() - 1) : topicPrefix;
        return name.isEmpty() ? CONNECTOR : name;
    }

    private static void writeKeyPayload(JsonGenerator generator, ChangeEvent event) throws IOException {
        generator.writeStartObject();
        generator.writeStringField("id", event.id());
        generator.writeStringField("partitionKey", event.partitionKey().jsonText());
        generator.writeEndObject();
    }

    /** An image of the item, {@code {"document":"<its JSON, character for character>"}}, or null. */
    private static void writeImage(JsonGenerator generator, String field, Optional<byte[]> json)
            throws IOException {
        if (json.isPresent()) {
            generator.writeObjectFieldStart(field);
            generator.writeStringField(EnvelopeSchemas.DOCUMENT, new String(json.get(), StandardCharsets.UTF_8));
            generator.writeEndObject();
        } else {
            generator.writeNullField(field);
        }
    }

    /** Writes {@code {"schema":…,"payload":…}} when there is a schema, else the payload alone. */
    private static byte[] write(ChangeEvent event, Optional<String> schema, PayloadWriter payload) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(256);
        try (JsonGenerator generator = StoreJson.mapper().getFactory().createGenerator(out, JsonEncoding.UTF8)) {
            if (schema.isPresent()) {
                generator.writeStartObject();
                generator.writeFieldName("schema");
                generator.writeRawValue(schema.get());
                generator.writeFieldName("payload");
                payload.write(generator);
                generator.writeEndObject();
            } else {
                payload.write(generator);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot encode the change envelope of " + event.container() + "/"
                    + event.id() + " at LSN " + event.lsn(), e);
        }
        return out.toByteArray();
    }

    /** Writes one payload: the key's or the value's. */
    @FunctionalInterface
    private interface PayloadWriter {
        void write(JsonGenerator generator) throws IOException;
    }

    private static JsonNode required(JsonNode node, String field, String path) {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            throw new IllegalArgumentException("Cannot read change envelope: field '" + path + "' is missing");
        }
        return value;
    }

    private static PartitionKeyValue partitionKey(JsonNode text, String path) {
        try {
            return PartitionKeyValue.parse(text.asText());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("Cannot read change envelope: field '" + path + "' is not a partition "
                    + "key's JSON text: " + e.getMessage(), e);
        }
    }

    /** The JSON bytes of an image's document, or null when the image is null or absent. */
    private static byte[] imageJson(JsonNode image, String field) {
        if (image == null || image.isNull()) {
            return null;
        }
        JsonNode text = image.get(EnvelopeSchemas.DOCUMENT);
        if (text == null || !text.isTextual()) {
            throw new IllegalArgumentException("Cannot read change envelope: field '" + field + "."
                    + EnvelopeSchemas.DOCUMENT + "' is not a string holding the document's JSON");
        }
        return text.textValue().getBytes(StandardCharsets.UTF_8);
    }
}
