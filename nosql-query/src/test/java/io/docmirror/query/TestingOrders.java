package io.docmirror.query;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.docmirror.json.ExactTreeDeserializer;
import io.docmirror.json.NumberFidelity;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The test documents ({@code query/orders.json}), read as the store reads documents (StoreJson's settings: every
 * number exact and spelled as written), and the same reading for expected results.
 */
final class TestingOrders {
    static final ObjectMapper JSON = JsonMapper.builder()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY)
            .nodeFactory(JsonNodeFactory.withExactBigDecimals(true))
            .addModule(ExactTreeDeserializer.module(NumberFidelity.SPELLING))
            .build();

    static final List<JsonNode> ORDERS = load("query/orders.json");

    private TestingOrders() {
    }

    private static List<JsonNode> load(String resource) {
        try (InputStream input = TestingOrders.class.getClassLoader().getResourceAsStream(resource)) {
            if (input == null) {
                throw new IllegalStateException("test resource " + resource + " is missing");
            }
            List<JsonNode> documents = new ArrayList<>();
            JSON.readTree(input).forEach(documents::add);
            return List.copyOf(documents);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The results as compact JSON text: numbers as they are spelled, properties in their order. */
    static String text(List<JsonNode> results) {
        ArrayNode array = JsonNodeFactory.instance.arrayNode();
        results.forEach(array::add);
        return array.toString();
    }

    /** Expected results written as JSON, respelled as {@link #text} spells results. */
    static String expected(String json) {
        try {
            return JSON.readTree(json).toString();
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("expected results are not JSON: " + json, e);
        }
    }
}
