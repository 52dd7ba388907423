package io.docmirror.store;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The partition key value events carry and mirrors store: one JSON text, numbers exactly as the item spelled them. */
class PartitionKeyValueTest {
    /** Each kind of key the store supports (one path; hierarchical keys are not supported), as items spell them. */
    private static final String[] SPELLINGS = {"\"c-1\"", "\"\"", "\"quote \\\" backslash \\\\ tab \\t\"", "\"日本\"",
            "\"emoji \uD83D\uDE00\"", "42", "-7", "1.10", "12345678901234567890", "123456789012345678901234567890.5",
            "1e2", "1E+2", "-0", "-0.0", "0.1000000000000000000000000001", "true", "false", "null", "{}"};

    @Test
    void jsonTextIsTheTextTheItemWroteNumbersUnrounded() {
        for (String spelling : SPELLINGS) {
            PartitionKeyValue value = PartitionKeyValue.parse(spelling);

            assertThat(value.jsonText()).as(spelling).isEqualTo(spelling);
            assertThat(value).as(spelling).hasToString(spelling);
            assertThat(PartitionKeyValue.parse(value.jsonText())).as(spelling).isEqualTo(value);
        }
    }

    @Test
    void jsonTextIsWhatTheTablesAndKafkaEnvelopesHeldBefore() throws Exception {
        // The mirror stored JsonNode.toString() in _pk and the Kafka envelope the store's mapper's text: both stay.
        for (String spelling : SPELLINGS) {
            JsonNode node = StoreJson.mapper().readTree(spelling);

            assertThat(PartitionKeyValue.of(node).jsonText()).as(spelling)
                    .isEqualTo(node.toString())
                    .isEqualTo(StoreJson.mapper().writeValueAsString(node));
        }
    }

    @Test
    void aStringIsWrittenAsJacksonEscapesIt() {
        PartitionKeyValue escaped = PartitionKeyValue.parse("\"caf\\u00e9 \\/\"");

        assertThat(escaped.jsonText()).isEqualTo("\"café /\"");
        assertThat(escaped).isEqualTo(PartitionKeyValue.parse("\"café /\""));
        assertThat(escaped.toJson().textValue()).isEqualTo("café /");
    }

    @Test
    void anItemWithoutThePartitionKeyPropertyHasTheValueNone() {
        assertThat(PartitionKeyValue.NONE.jsonText()).isEqualTo("{}");
        assertThat(PartitionKeyValue.parse("{}")).isEqualTo(PartitionKeyValue.NONE);
        assertThat(PartitionKeyValue.of(MissingNode.getInstance())).isEqualTo(PartitionKeyValue.NONE);
        assertThat(PartitionKeyValue.of(PartitionKey.NONE)).isEqualTo(PartitionKeyValue.NONE);
        assertThat(PartitionKeyValue.NONE.toPartitionKey()).isEqualTo(PartitionKey.NONE);
        assertThat(PartitionKeyValue.NONE).isNotEqualTo(PartitionKeyValue.parse("null"));
        assertThat(PartitionKeyValue.parse("null").toPartitionKey()).isEqualTo(PartitionKey.nullValue());
    }

    @Test
    void equalsByTextWhileTheStoresKeyEqualsByValue() {
        PartitionKeyValue ten = PartitionKeyValue.parse("10");
        PartitionKeyValue tenPointZero = PartitionKeyValue.parse("10.0");

        assertThat(ten).isNotEqualTo(tenPointZero);
        assertThat(ten.toPartitionKey()).isEqualTo(tenPointZero.toPartitionKey()).isEqualTo(PartitionKey.of(10));
        assertThat(PartitionKeyValue.parse("10")).isEqualTo(ten).hasSameHashCodeAs(ten);
        assertThat(PartitionKeyValue.parse("\"10\"")).isNotEqualTo(ten);
    }

    @Test
    void theStoresKeyGivesTheValueItHolds() {
        assertThat(PartitionKeyValue.of(PartitionKey.of("c-1")).jsonText()).isEqualTo("\"c-1\"");
        assertThat(PartitionKeyValue.of(PartitionKey.of(42)).jsonText()).isEqualTo("42");
        assertThat(PartitionKeyValue.of(PartitionKey.of(true)).jsonText()).isEqualTo("true");
        assertThat(PartitionKeyValue.of(PartitionKey.nullValue()).jsonText()).isEqualTo("null");
        JsonNode exact = StoreJson.mapper().getNodeFactory().textNode("x");
        assertThat(PartitionKeyValue.of(PartitionKey.fromJson(exact)).toJson()).isSameAs(exact);
    }

    @Test
    void noneIsANewObjectEachTimeSoNoCallerCanChangeIt() {
        ((ObjectNode) PartitionKeyValue.NONE.toJson()).put("changed", true);

        assertThat(PartitionKeyValue.NONE.toJson().isEmpty()).isTrue();
        assertThat(PartitionKeyValue.NONE.jsonText()).isEqualTo("{}");
    }

    @Test
    void anArrayOrAnObjectWithPropertiesIsNoValue() {
        assertThatThrownBy(() -> PartitionKeyValue.parse("[\"a\",\"b\"]"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not [\"a\",\"b\"]");
        assertThatThrownBy(() -> PartitionKeyValue.parse("{\"a\":1}"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("{} for none");
        assertThatThrownBy(() -> PartitionKeyValue.parse("\"a\" junk"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("is not JSON");
        assertThatThrownBy(() -> PartitionKeyValue.parse(""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("never empty");
    }
}
