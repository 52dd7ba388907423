package io.docmirror.feed.kafka;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import static java.util.Objects.requireNonNull;

/**
 * The Kafka Connect schemas of a topic's keys and values, in the JSON form Connect's {@code JsonConverter} reads with
 * {@code schemas.enable=true}. Debezium's conventions: the value schema is named {@code <topic>.Envelope} (its
 * {@code ExtractNewRecordState} transform only unwraps values whose schema name ends so), the key schema
 * {@code <topic>.Key}.
 *
 * <p>A document is schemaless JSON, so it travels as a string that holds its JSON exactly as the store has it, named
 * {@code io.debezium.data.Json} as Debezium's MongoDB connector names its documents; so does the partition key. A
 * struct inferred from the documents would have to give each number a Connect type: a value beyond 64 bits would
 * not fit {@code int64}, a decimal such as {@code 0.1000000000000000055511151231257827} would be rounded by
 * {@code float64}, and a {@code decimal} needs one scale for every document; a string holds them all as written.
 * {@code before} and {@code after} are nevertheless structs, {@code <topic>.Value} with the one field
 * {@code document}: Debezium's {@code ExtractNewRecordState} refuses a row that is not a struct, and a sink that maps
 * fields to columns (Debezium's JDBC sink) makes a table of the key's {@code id} and {@code partitionKey} and a JSON
 * column {@code document}.
 *
 * @param key the key schema as JSON text
 * @param value the value schema as JSON text
 */
record EnvelopeSchemas(String key, String value) {
    /** Debezium's name for a string holding a JSON document. */
    static final String JSON_TEXT = "io.debezium.data.Json";
    /** The one field of {@code before} and {@code after}. */
    static final String DOCUMENT = "document";
    private static final String SOURCE = "io.docmirror.Source";

    EnvelopeSchemas {
        requireNonNull(key, "key is null");
        requireNonNull(value, "value is null");
    }

    static EnvelopeSchemas forTopic(String topic) {
        ObjectNode key = struct(topic + ".Key", false);
        ArrayNode keyFields = key.putArray("fields");
        keyFields.add(field("id", "string", false));
        keyFields.add(jsonText("partitionKey", false));

        ObjectNode source = struct(SOURCE, false);
        source.put("field", "source");
        ArrayNode sourceFields = source.putArray("fields");
        sourceFields.add(field("version", "string", false));
        sourceFields.add(field("connector", "string", false));
        sourceFields.add(field("name", "string", false));
        sourceFields.add(field("ts_ms", "int64", false));
        ObjectNode snapshot = field("snapshot", "string", true);
        snapshot.put("name", "io.debezium.data.Enum");
        snapshot.put("version", 1);
        snapshot.putObject("parameters").put("allowed", "true,last,false,incremental");
        sourceFields.add(snapshot);
        sourceFields.add(field("container", "string", false));
        sourceFields.add(field("id", "string", false));
        sourceFields.add(jsonText("partitionKey", false));
        sourceFields.add(field("feedRange", "int32", false));
        sourceFields.add(field("lsn", "int64", false));
        sourceFields.add(field("ttlExpired", "boolean", false));
        sourceFields.add(field("containerRid", "string", true));

        ObjectNode value = struct(topic + ".Envelope", false);
        ArrayNode valueFields = value.putArray("fields");
        valueFields.add(row(topic, "before"));
        valueFields.add(row(topic, "after"));
        valueFields.add(source);
        valueFields.add(field("op", "string", false));
        valueFields.add(field("ts_ms", "int64", true));
        return new EnvelopeSchemas(key.toString(), value.toString());
    }

    /** An image of the item: optional (none before a create, none after a delete), its document as JSON text. */
    private static ObjectNode row(String topic, String name) {
        ObjectNode row = struct(topic + ".Value", true);
        row.put("field", name);
        row.putArray("fields").add(jsonText(DOCUMENT, false));
        return row;
    }

    private static ObjectNode struct(String name, boolean optional) {
        ObjectNode struct = JsonNodeFactory.instance.objectNode();
        struct.put("type", "struct");
        struct.put("optional", optional);
        struct.put("name", name);
        return struct;
    }

    private static ObjectNode field(String name, String type, boolean optional) {
        ObjectNode field = JsonNodeFactory.instance.objectNode();
        field.put("type", type);
        field.put("optional", optional);
        field.put("field", name);
        return field;
    }

    private static ObjectNode jsonText(String name, boolean optional) {
        ObjectNode field = field(name, "string", optional);
        field.put("name", JSON_TEXT);
        field.put("version", 1);
        return field;
    }
}
