package io.docmirror.store;

import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.node.BigIntegerNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.LongNode;
import io.docmirror.store.internal.DocumentValidator;

import java.math.BigInteger;

/**
 * The JSON settings every part of the store shares: numbers are read exactly and keep the text they were written
 * with ({@link #numberNode}), duplicate keys are an error, and nothing that is not strict RFC 8259 JSON is accepted.
 */
public final class StoreJson {
    /** Cosmos DB allows 128 levels of nesting; the parser itself stops a little later so that we report the rule. */
    public static final int MAX_NESTING_DEPTH = 128;

    /**
     * A number may be as long as a whole item: Cosmos DB limits items, not numbers. The store copies numbers as text
     * and parses one only when asked for its value, with Jackson's fast parser for long ones.
     */
    public static final int MAX_NUMBER_LENGTH = DocumentValidator.MAX_ITEM_BYTES;

    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY)
            .disable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
            .enable(StreamReadFeature.USE_FAST_BIG_NUMBER_PARSER)
            .nodeFactory(JsonNodeFactory.withExactBigDecimals(true))
            .addModule(new SimpleModule("exact-numbers").addDeserializer(JsonNode.class, new ExactTreeDeserializer()))
            .build();

    static {
        MAPPER.getFactory().setStreamReadConstraints(StreamReadConstraints.builder()
                .maxNestingDepth(MAX_NESTING_DEPTH + 2)
                .maxNumberLength(MAX_NUMBER_LENGTH)
                .build());
    }

    private StoreJson() {
    }

    /** The shared, fully configured mapper. Do not reconfigure it. */
    public static ObjectMapper mapper() {
        return MAPPER;
    }

    /**
     * The node for a JSON number that writes back exactly as {@code text}: for an integer of up to a thousand digits
     * Jackson's own int, long or BigInteger node, as its reader makes them; for every other number a
     * {@link LiteralNumberNode}, parsed only when its value is asked for. Jackson's BigDecimal node would write
     * {@code 1e2} as {@code 1E+2} and {@code -0.0} as {@code 0.0}, and its long node {@code -0} as {@code 0}.
     *
     * @throws IllegalArgumentException when the text is not a JSON number
     */
    public static JsonNode numberNode(String text) {
        return NumberSpelling.of(text) == NumberSpelling.INTEGER ? integerNode(text) : LiteralNumberNode.ofParsed(text);
    }

    /** An int, long or BigInteger node, as Jackson's reader picks them; all write JSON's one spelling of an integer. */
    static JsonNode integerNode(String text) {
        if (text.length() <= 18) {
            long value = Long.parseLong(text);
            return value == (int) value ? IntNode.valueOf((int) value) : LongNode.valueOf(value);
        }
        BigInteger value = new BigInteger(text);
        return value.bitLength() < Long.SIZE ? LongNode.valueOf(value.longValue()) : BigIntegerNode.valueOf(value);
    }
}
