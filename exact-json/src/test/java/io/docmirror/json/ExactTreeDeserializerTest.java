package io.docmirror.json;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.BigIntegerNode;
import com.fasterxml.jackson.databind.node.DecimalNode;
import com.fasterxml.jackson.databind.node.DoubleNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.util.TokenBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.math.BigDecimal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ExactTreeDeserializerTest {
    private static final String LONG_INTEGER = "1" + "0".repeat(1500);
    private static final String NUMBERS = "[-0.0,-0,1e2,0.0000001,1.50,7,1e-2147483648," + LONG_INTEGER + "]";

    private static ObjectMapper mapper(NumberFidelity fidelity) {
        return JsonMapper.builder()
                .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
                .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY)
                .nodeFactory(JsonNodeFactory.withExactBigDecimals(true))
                .addModule(ExactTreeDeserializer.module(fidelity))
                .build();
    }

    @Test
    void keepingSpellingEveryNumberWritesBackAsWritten() throws IOException {
        ObjectMapper mapper = mapper(NumberFidelity.SPELLING);
        mapper.getFactory().setStreamReadConstraints(StreamReadConstraints.builder().maxNumberLength(10_000).build());

        JsonNode tree = mapper.readTree(NUMBERS);

        assertThat(mapper.writeValueAsString(tree)).isEqualTo(NUMBERS);
        assertThat(tree.get(2)).isInstanceOf(LiteralNumberNode.class);
        assertThat(tree.get(4)).isInstanceOf(LiteralNumberNode.class);
        assertThat(tree.get(5)).isEqualTo(IntNode.valueOf(7));
    }

    @Test
    void keepingValueOnlyTheNumbersNoBigDecimalHoldsStayText() throws IOException {
        ObjectMapper mapper = mapper(NumberFidelity.VALUE);
        mapper.getFactory().setStreamReadConstraints(StreamReadConstraints.builder().maxNumberLength(10_000).build());

        JsonNode tree = mapper.readTree(NUMBERS);

        assertThat(mapper.writeValueAsString(tree))
                .isEqualTo("[-0.0,-0,1E+2,1E-7,1.50,7,1e-2147483648," + LONG_INTEGER + "]");
        assertThat(tree.get(0)).isInstanceOf(LiteralNumberNode.class);
        assertThat(tree.get(1)).isInstanceOf(LiteralNumberNode.class);
        assertThat(tree.get(2)).isInstanceOf(DecimalNode.class);
        assertThat(tree.get(4)).isEqualTo(DecimalNode.valueOf(new BigDecimal("1.50")));
        assertThat(tree.get(6)).isInstanceOf(LiteralNumberNode.class);
        assertThat(tree.get(7)).isInstanceOf(LiteralNumberNode.class);
    }

    @ParameterizedTest
    @EnumSource(NumberFidelity.class)
    void integersAreJacksonsOwnNodes(NumberFidelity fidelity) throws IOException {
        JsonNode tree = mapper(fidelity).readTree("[1,-2147483649,9223372036854775808]");

        assertThat(tree.get(0)).isEqualTo(IntNode.valueOf(1));
        assertThat(tree.get(1)).isEqualTo(LongNode.valueOf(-2147483649L));
        assertThat(tree.get(2)).isInstanceOf(BigIntegerNode.class);
    }

    @ParameterizedTest
    @EnumSource(NumberFidelity.class)
    void aTreeReadAgainIsTheSameTree(NumberFidelity fidelity) throws IOException {
        ObjectMapper mapper = mapper(fidelity);
        JsonNode tree = mapper.readTree("{\"a\":[-0.0,1e2,{\"b\":null}],\"c\":1e-2147483648,\"d\":\"x\",\"e\":true}");

        JsonNode readAgain = mapper.readTree(tree.traverse(mapper));

        assertThat(readAgain).isEqualTo(tree);
    }

    /** A token buffer holds a number written as text as a float, whatever the text: its spelling decides. */
    @Test
    void readsNumbersFromATokenBufferByTheirText() throws IOException {
        ObjectMapper mapper = mapper(NumberFidelity.SPELLING);
        TokenBuffer buffer = new TokenBuffer(mapper, false);
        buffer.writeStartArray();
        buffer.writeNumber("12");
        buffer.writeNumber("1e2");
        buffer.writeNumber("-0");
        buffer.writeEndArray();

        JsonNode tree = mapper.readTree(buffer.asParser(mapper));

        assertThat(tree.get(0)).isEqualTo(IntNode.valueOf(12));
        assertThat(tree.get(1)).isEqualTo(new LiteralNumberNode("1e2"));
        assertThat(tree.get(2)).isEqualTo(new LiteralNumberNode("-0"));
    }

    @Test
    void aDoubleThatIsNotANumberStaysADouble() throws IOException {
        ObjectMapper mapper = mapper(NumberFidelity.VALUE);

        JsonNode tree = mapper.readTree(DoubleNode.valueOf(Double.NaN).traverse(mapper));

        assertThat(tree.isDouble()).isTrue();
        assertThat(tree.doubleValue()).isNaN();
    }

    @Test
    void nullsAreNullNodesAndRepeatedNamesAreRefusedWhenAsked() throws IOException {
        ObjectMapper strict = mapper(NumberFidelity.SPELLING);
        ObjectMapper lenient = strict.copy().disable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY);

        assertThat(strict.readTree("{\"a\":null}").get("a")).isSameAs(NullNode.getInstance());
        assertThatThrownBy(() -> strict.readTree("{\"a\":1,\"a\":2}"))
                .isInstanceOf(MismatchedInputException.class)
                .hasMessageContaining("Duplicate field 'a'");
        assertThat(lenient.readTree("{\"a\":1,\"a\":2}").get("a")).isEqualTo(IntNode.valueOf(2));
    }

    @Test
    void refusesInputWithNoValue() {
        ObjectMapper mapper = mapper(NumberFidelity.VALUE);

        assertThatThrownBy(() -> mapper.readValue("[1,", JsonNode.class))
                .isInstanceOf(JsonProcessingException.class);
    }
}
