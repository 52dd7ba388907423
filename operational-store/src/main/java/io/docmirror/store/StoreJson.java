package io.docmirror.store;

import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;

/**
 * The JSON settings every part of the store shares: numbers are read exactly (integers beyond 64 bits as
 * BigInteger, every decimal as BigDecimal with its scale), duplicate keys are an error, and nothing that is
 * not strict RFC 8259 JSON is accepted.
 */
public final class StoreJson {
    /** Cosmos DB allows 128 levels of nesting; the parser itself stops a little later so that we report the rule. */
    public static final int MAX_NESTING_DEPTH = 128;

    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY)
            .disable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
            .nodeFactory(JsonNodeFactory.withExactBigDecimals(true))
            .build();

    static {
        MAPPER.getFactory().setStreamReadConstraints(StreamReadConstraints.builder()
                .maxNestingDepth(MAX_NESTING_DEPTH + 2)
                .build());
    }

    private StoreJson() {
    }

    /** The shared, fully configured mapper. Do not reconfigure it. */
    public static ObjectMapper mapper() {
        return MAPPER;
    }
}
