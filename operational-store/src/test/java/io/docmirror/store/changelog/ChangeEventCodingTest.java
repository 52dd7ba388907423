package io.docmirror.store.changelog;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.docmirror.store.PartitionKeyValue;
import io.docmirror.store.StoreJson;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The two encodings of a change event: the store's log entry and the JSON that travels over HTTP and Kafka. */
class ChangeEventCodingTest {
    private static final String DOCUMENT = "{\"id\":\"o1\",\"customerId\":\"c-\\\"7\\\"\",\"amount\":12.50,"
            + "\"big\":123456789012345678901234567890,\"name\":\"Zoë\",\"_ts\":1767225600}";
    private static final String PREVIOUS = "{\"id\":\"o1\",\"amount\":10.0}";

    @Test
    void logEntryKeepsEveryFieldAndTheDocumentsByteForByte() {
        for (JsonNode partitionKey : new JsonNode[] {json("\"c-1\""), json("\"c-\\\"7\\\"\""), json("42"),
                json("{}"), json("null"), json("true")}) {
            byte[] entry = ChangeLogEntry.encode("orders", partitionKey, "o1", Operation.REPLACE, 42, 1767225600123L,
                    false, bytes(DOCUMENT), bytes(PREVIOUS));

            ChangeEvent event = ChangeLogEntry.decode(entry);

            assertThat(event.partitionKey()).isEqualTo(PartitionKeyValue.of(partitionKey));
            assertThat(event.container()).isEqualTo("orders");
            assertThat(event.id()).isEqualTo("o1");
            assertThat(event.operation()).isEqualTo(Operation.REPLACE);
            assertThat(event.lsn()).isEqualTo(42);
            assertThat(event.ts()).isEqualTo(1767225600123L);
            assertThat(ChangeLogEntry.ts(entry)).isEqualTo(1767225600123L);
            assertThat(event.ttlExpired()).isFalse();
            assertThat(new String(event.documentJson().orElseThrow(), StandardCharsets.UTF_8)).isEqualTo(DOCUMENT);
            assertThat(new String(event.previousJson().orElseThrow(), StandardCharsets.UTF_8)).isEqualTo(PREVIOUS);
            assertThat(event.document().orElseThrow().get("amount").decimalValue()).isEqualByComparingTo("12.50");
            assertThat(event.document().orElseThrow().get("big").bigIntegerValue())
                    .hasToString("123456789012345678901234567890");
        }
    }

    @Test
    void logEntryKeepsAnyStringPartitionKeySpelledAsJacksonWritesIt() {
        for (String key : new String[] {"", "plain", "quote \" backslash \\ slash /", "tab\tnewline\ncr\r\u0001\u001f",
                "\u007f", "日本", "emoji \uD83D\uDE00", "line separator \u2028"}) {
            JsonNode partitionKey = StoreJson.mapper().getNodeFactory().textNode(key);
            byte[] entry = ChangeLogEntry.encode("orders", partitionKey, "o1", Operation.CREATE, 1, 1000, false,
                    bytes(DOCUMENT), null);

            assertThat(ChangeLogEntry.decode(entry).partitionKey()).isEqualTo(PartitionKeyValue.of(partitionKey));
            assertThat(new String(entry, StandardCharsets.UTF_8)).contains(partitionKey.toString());
        }
    }

    @Test
    void logEntryOfATtlExpiryHasNoDocument() {
        byte[] entry = ChangeLogEntry.encode("sessions", json("\"u1\""), "s1", Operation.DELETE, 7, 1000, true,
                null, bytes(PREVIOUS));

        ChangeEvent event = ChangeLogEntry.decode(entry);

        assertThat(event.ttlExpired()).isTrue();
        assertThat(event.document()).isEmpty();
        assertThat(event.documentJson()).isEmpty();
        assertThat(event.previous().orElseThrow().get("id").asText()).isEqualTo("o1");
    }

    @Test
    void damagedLogEntryIsRefusedWithTheReason() {
        byte[] entry = ChangeLogEntry.encode("orders", json("\"c-1\""), "o1", Operation.CREATE, 1, 1000, false,
                bytes(DOCUMENT), null);

        assertThatThrownBy(() -> ChangeLogEntry.decode(Arrays.copyOf(entry, entry.length - 5)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("cut short");
        byte[] longer = Arrays.copyOf(entry, entry.length + 3);
        assertThatThrownBy(() -> ChangeLogEntry.decode(longer))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("orders/o1").hasMessageContaining("3 bytes left over");
        byte[] newerFormat = entry.clone();
        newerFormat[0] = 9;
        assertThatThrownBy(() -> ChangeLogEntry.decode(newerFormat))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("format 9");
    }

    @Test
    void jsonFormRoundTripsWithExactNumbersAndLazyDocuments() {
        PartitionKeyValue partitionKey = PartitionKeyValue.of(json("\"c-1\""));
        byte[] json = ChangeEventJson.encode("orders", partitionKey, "o1", Operation.REPLACE, 42, 5000, false,
                bytes(DOCUMENT), bytes(PREVIOUS));

        ChangeEvent event = ChangeEventJson.fromJson(json);

        assertThat(new String(event.documentJson().orElseThrow(), StandardCharsets.UTF_8)).isEqualTo(DOCUMENT);
        assertThat(new String(event.previousJson().orElseThrow(), StandardCharsets.UTF_8)).isEqualTo(PREVIOUS);
        assertThat(ChangeEventJson.toJson(event)).isEqualTo(json);
        assertThat(ChangeEventJson.fromTree(json(new String(json, StandardCharsets.UTF_8)))).isEqualTo(event);
    }

    @Test
    void eventBuiltFromTreesSerialisesItsDocuments() {
        ObjectNode document = (ObjectNode) json(DOCUMENT);
        ChangeEvent event = new ChangeEvent("orders", PartitionKeyValue.of(json("\"c-1\"")), "o1", Operation.CREATE,
                1, 1000, false, java.util.Optional.of(document), java.util.Optional.empty());

        ChangeEvent decoded = ChangeEventJson.fromJson(ChangeEventJson.toJson(event));

        assertThat(decoded).isEqualTo(event);
        assertThat(decoded.document().orElseThrow().get("big").bigIntegerValue())
                .hasToString("123456789012345678901234567890");
    }

    @Test
    void malformedJsonEventNamesTheField() {
        assertThatThrownBy(() -> ChangeEventJson.fromJson(bytes("{\"container\":\"orders\",\"id\":\"o1\"}")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("field 'partitionKey' is missing");
        assertThatThrownBy(() -> ChangeEventJson.fromJson(bytes("{\"container\":\"orders\",\"partitionKey\":\"c\","
                + "\"id\":\"o1\",\"operation\":\"CREATE\",\"lsn\":1,\"ts\":1,\"document\":[1]}")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("field 'document' is not an object");
    }

    private static JsonNode json(String text) {
        try {
            return StoreJson.mapper().readTree(text);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
