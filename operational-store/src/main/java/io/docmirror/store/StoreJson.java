package io.docmirror.store;

import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.docmirror.json.ExactTreeDeserializer;
import io.docmirror.json.LiteralNumberNode;
import io.docmirror.json.NumberFidelity;
import io.docmirror.store.internal.DocumentValidator;

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
            .addModule(ExactTreeDeserializer.module(NumberFidelity.SPELLING))
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
        return NumberFidelity.SPELLING.numberNode(text);
    }
}
