package io.docmirror.json;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.json.JsonMapper;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LiteralNumberNodeTest {
    @Test
    void writesItsTextAndParsesItsValueOnDemand() throws IOException {
        LiteralNumberNode node = new LiteralNumberNode("-0.0");

        assertThat(new JsonMapper().writeValueAsString(node)).isEqualTo("-0.0");
        assertThat(node.asText()).isEqualTo("-0.0");
        assertThat(Double.doubleToRawLongBits(node.doubleValue())).isEqualTo(Double.doubleToRawLongBits(-0.0d));
        assertThat(node.decimalValue()).isEqualByComparingTo(BigDecimal.ZERO);
        assertThat(node.numberValue()).hasToString("-0.0");
    }

    @Test
    void isAnIntegerOnlyWithoutAFractionOrExponent() {
        assertThat(new LiteralNumberNode("-0").isIntegralNumber()).isTrue();
        assertThat(new LiteralNumberNode("-0").asToken()).isEqualTo(JsonToken.VALUE_NUMBER_INT);
        assertThat(new LiteralNumberNode("-0").numberType()).isEqualTo(JsonParser.NumberType.INT);
        assertThat(new LiteralNumberNode("1e2").isIntegralNumber()).isFalse();
        assertThat(new LiteralNumberNode("1e2").numberType()).isEqualTo(JsonParser.NumberType.BIG_DECIMAL);
        assertThat(new LiteralNumberNode("9223372036854775808").numberType())
                .isEqualTo(JsonParser.NumberType.BIG_INTEGER);
        assertThat(new LiteralNumberNode("9223372036854775807").numberType()).isEqualTo(JsonParser.NumberType.LONG);
    }

    @Test
    void convertsToIntAndLongOnlyWhenTheWholePartFits() {
        assertThat(new LiteralNumberNode("2147483647.9").canConvertToInt()).isTrue();
        assertThat(new LiteralNumberNode("2147483648").canConvertToInt()).isFalse();
        assertThat(new LiteralNumberNode("-9223372036854775808").canConvertToLong()).isTrue();
        assertThat(new LiteralNumberNode("-9223372036854775809").canConvertToLong()).isFalse();
        assertThat(new LiteralNumberNode("1e400").canConvertToLong()).isFalse();
        assertThat(new LiteralNumberNode("1e2").bigIntegerValue()).isEqualTo(BigInteger.valueOf(100));
    }

    @Test
    void aNumberNoBigDecimalHoldsHasOnlyItsTextAndADouble() {
        LiteralNumberNode node = new LiteralNumberNode("1e-2147483648");

        assertThat(node.doubleValue()).isZero();
        assertThatThrownBy(node::decimalValue).isInstanceOf(NumberFormatException.class);
    }

    @Test
    void isEqualToTheSameSpellingOnly() {
        assertThat(new LiteralNumberNode("1.0")).isEqualTo(new LiteralNumberNode("1.0"))
                .hasSameHashCodeAs(new LiteralNumberNode("1.0"))
                .isNotEqualTo(new LiteralNumberNode("1.00"));
    }

    @Test
    void refusesTextThatIsNotANumber() {
        assertThatThrownBy(() -> new LiteralNumberNode("01")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new LiteralNumberNode(null)).isInstanceOf(NullPointerException.class);
    }
}
