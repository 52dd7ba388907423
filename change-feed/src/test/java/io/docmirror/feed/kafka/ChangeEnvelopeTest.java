package io.docmirror.feed.kafka;

import io.docmirror.store.ContainerProperties;
import io.docmirror.store.PartitionKeyValue;
import io.docmirror.store.changelog.ChangeEvent;
import io.docmirror.store.changelog.ChangeEventJson;
import io.docmirror.store.changelog.Operation;
import org.apache.kafka.clients.producer.internals.BuiltInPartitioner;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.json.JsonConverter;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The Debezium-shaped envelope: what it looks like, that it reads back to the same change, and that Kafka Connect's
 * own JsonConverter reads it (with and without schemas) keeping every number exactly.
 */
class ChangeEnvelopeTest {
    /** Numbers no long or double holds, and spellings a BigDecimal would change. */
    static final String DOCUMENT = "{\"id\":\"o1\",\"customer\":\"c1\",\"big\":9223372036854775809,"
            + "\"tiny\":0.1000000000000000055511151231257827,\"zero\":-0.0,\"e\":1E+2,\"name\":\"Zoë \\\"q\\\"\"}";
    private static final String PREVIOUS = "{\"id\":\"o1\",\"customer\":\"c1\",\"big\":1}";
    private static final ContainerProperties ORDERS = ContainerProperties.of("orders", "/customer");
    private static final KafkaBridgeConfig PLAIN = KafkaBridgeConfig.defaults();
    private static final KafkaBridgeConfig WITH_SCHEMAS = PLAIN.withConnectSchemas(true);

    @Test
    void anEventLooksLikeDebeziumsWithTheDocumentsAsTheirExactJson() {
        ChangeEvent replace = event(Operation.REPLACE, DOCUMENT, PREVIOUS, false);
        int feedRange = ORDERS.logPartitionOf(io.docmirror.store.PartitionKey.of("c1"));

        assertThat(text(new ChangeEnvelope(PLAIN, ORDERS).key(replace)))
                .isEqualTo("{\"id\":\"o1\",\"partitionKey\":\"\\\"c1\\\"\"}");
        assertThat(text(new ChangeEnvelope(PLAIN, ORDERS).value(replace, 1767225600125L))).isEqualTo("""
                {"before":{"document":"{\\"id\\":\\"o1\\",\\"customer\\":\\"c1\\",\\"big\\":1}"},\
                "after":{"document":"{\\"id\\":\\"o1\\",\\"customer\\":\\"c1\\",\\"big\\":9223372036854775809,\
                \\"tiny\\":0.1000000000000000055511151231257827,\\"zero\\":-0.0,\\"e\\":1E+2,\
                \\"name\\":\\"Zoë \\\\\\"q\\\\\\"\\"}"},\
                "source":{"version":"1","connector":"docmirror","name":"docmirror","ts_ms":1767225600000,\
                "snapshot":"false","container":"orders","id":"o1","partitionKey":"\\"c1\\"","feedRange":%d,\
                "lsn":42,"ttlExpired":false},"op":"u","ts_ms":1767225600125}""".formatted(feedRange));
    }

    @Test
    void everyKindOfChangeReadsBackExactlyWithAndWithoutSchemas() {
        List<ChangeEvent> events = List.of(event(Operation.CREATE, DOCUMENT, null, false),
                event(Operation.REPLACE, DOCUMENT, PREVIOUS, false), event(Operation.DELETE, null, DOCUMENT, true),
                event(Operation.DELETE, null, null, false));
        for (KafkaBridgeConfig config : List.of(PLAIN, WITH_SCHEMAS)) {
            ChangeEnvelope envelope = new ChangeEnvelope(config, ORDERS);
            for (ChangeEvent event : events) {
                ChangeEvent read = ChangeEnvelope.fromValue(envelope.value(event, 5));

                assertThat(read).isEqualTo(event);
                assertThat(read.documentJson().map(ChangeEnvelopeTest::text))
                        .isEqualTo(event.documentJson().map(ChangeEnvelopeTest::text));
            }
        }
    }

    /** The container's {@code _rid} tells its changes from those of an earlier container of the same name. */
    @Test
    void eachChangeNamesTheContainerItCameFromAndConnectReadsIt() {
        ContainerProperties withRid = ORDERS.withResourceId("AAAAAg");
        ChangeEvent replace = event(Operation.REPLACE, DOCUMENT, PREVIOUS, false);
        for (KafkaBridgeConfig config : List.of(PLAIN, WITH_SCHEMAS)) {
            ChangeEnvelope.Published read = ChangeEnvelope.read(new ChangeEnvelope(config, withRid).value(replace, 5));

            assertThat(read.containerRid()).isEqualTo("AAAAAg");
            assertThat(read.event()).isEqualTo(replace);
        }
        assertThat(ChangeEnvelope.read(new ChangeEnvelope(PLAIN, ORDERS).value(replace, 5)).containerRid())
                .as("no _rid known: none written, none read").isNull();
        Struct value = (Struct) converter(true, false).toConnectData("docmirror.orders",
                new ChangeEnvelope(WITH_SCHEMAS, withRid).value(replace, 5)).value();
        assertThat(value.getStruct("source").getString("containerRid")).isEqualTo("AAAAAg");
    }

    @Test
    void connectsJsonConverterReadsItWithSchemasAndKeepsEveryNumber() {
        ChangeEnvelope envelope = new ChangeEnvelope(WITH_SCHEMAS, ORDERS);
        ChangeEvent replace = event(Operation.REPLACE, DOCUMENT, PREVIOUS, false);
        JsonConverter values = converter(true, false);
        JsonConverter keys = converter(true, true);

        SchemaAndValue value = values.toConnectData("docmirror.orders", envelope.value(replace, 5));
        SchemaAndValue key = keys.toConnectData("docmirror.orders", envelope.key(replace));

        assertThat(value.schema().name()).isEqualTo("docmirror.orders.Envelope");
        Struct struct = (Struct) value.value();
        assertThat(struct.getStruct("after").getString("document")).isEqualTo(DOCUMENT);
        assertThat(struct.getStruct("before").getString("document")).isEqualTo(PREVIOUS);
        assertThat(struct.getString("op")).isEqualTo("u");
        assertThat(struct.schema().field("after").schema().name()).isEqualTo("docmirror.orders.Value");
        assertThat(struct.schema().field("after").schema().field("document").schema().name())
                .isEqualTo("io.debezium.data.Json");
        assertThat(struct.getStruct("source").getInt64("lsn")).isEqualTo(42L);
        assertThat(key.schema().name()).isEqualTo("docmirror.orders.Key");
        assertThat(((Struct) key.value()).getString("id")).isEqualTo("o1");
        assertThat(((Struct) key.value()).getString("partitionKey")).isEqualTo("\"c1\"");
    }

    @Test
    void connectsJsonConverterReadsItWithoutSchemasAndKeepsEveryNumber() {
        ChangeEvent replace = event(Operation.REPLACE, DOCUMENT, PREVIOUS, false);

        Object value = converter(false, false).toConnectData("docmirror.orders",
                new ChangeEnvelope(PLAIN, ORDERS).value(replace, 5)).value();

        assertThat(value).isInstanceOfSatisfying(Map.class, payload -> {
            assertThat(payload.get("after")).isEqualTo(Map.of("document", DOCUMENT));
            assertThat(payload.get("op")).isEqualTo("u");
        });
    }

    @Test
    void anItemKeepsItsPartitionWithAndWithoutSchemasWhereKafkasPartitionerPutsItsKey() {
        ChangeEvent event = event(Operation.CREATE, DOCUMENT, null, false);
        byte[] plainKey = new ChangeEnvelope(PLAIN, ORDERS).key(event);

        assertThat(KafkaChangePublisher.partitionOf(event, 7))
                .isEqualTo(BuiltInPartitioner.partitionForKey(plainKey, 7));
        assertThat(new ChangeEnvelope(WITH_SCHEMAS, ORDERS).key(event)).isNotEqualTo(plainKey);
    }

    @Test
    void aRecordInTheEarlierFormatIsRefusedNamingWhatIsMissing() {
        byte[] earlier = ChangeEventJson.toJson(event(Operation.CREATE, DOCUMENT, null, false));

        assertThatThrownBy(() -> ChangeEnvelope.fromValue(earlier))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Cannot read change envelope: field 'source' is missing");
        assertThatThrownBy(() -> ChangeEnvelope.fromValue(bytes("{\"op\":\"r\",\"source\":{\"container\":\"orders\","
                + "\"partitionKey\":\"1\",\"id\":\"o1\",\"lsn\":1,\"ts_ms\":1}}")))
                .hasMessage("Cannot read change envelope: op 'r' is not one docmirror publishes (c, u or d)");
    }

    static ChangeEvent event(Operation operation, String document, String previous, boolean ttlExpired) {
        return ChangeEvent.ofJson("orders", PartitionKeyValue.parse("\"c1\""), "o1", operation, 42, 1767225600000L,
                ttlExpired, document == null ? null : bytes(document), previous == null ? null : bytes(previous));
    }

    private static JsonConverter converter(boolean schemas, boolean forKeys) {
        JsonConverter converter = new JsonConverter();
        converter.configure(Map.of("schemas.enable", String.valueOf(schemas)), forKeys);
        return converter;
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
