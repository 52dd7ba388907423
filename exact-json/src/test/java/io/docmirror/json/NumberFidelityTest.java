package io.docmirror.json;

import com.fasterxml.jackson.databind.node.DecimalNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.LongNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

import java.math.BigDecimal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class NumberFidelityTest {
    @ParameterizedTest
    @CsvSource({
        "SPELLING, INTEGER,       false",
        "SPELLING, DECIMAL,       true",
        "SPELLING, NEGATIVE_ZERO, true",
        "SPELLING, TEXT_ONLY,     true",
        "VALUE,    INTEGER,       false",
        "VALUE,    DECIMAL,       false",
        "VALUE,    NEGATIVE_ZERO, true",
        "VALUE,    TEXT_ONLY,     true"})
    void whichNumbersAreKeptAsText(NumberFidelity fidelity, NumberSpelling spelling, boolean keptAsText) {
        assertThat(fidelity.keepsText(spelling)).isEqualTo(keptAsText);
    }

    @Test
    void keepingSpellingADecimalIsItsText() {
        assertThat(NumberFidelity.SPELLING.numberNode("1e2")).isEqualTo(new LiteralNumberNode("1e2"));
        assertThat(NumberFidelity.SPELLING.numberNode("2147483648")).isEqualTo(LongNode.valueOf(2147483648L));
    }

    @Test
    void keepingValueADecimalIsAnExactBigDecimal() {
        assertThat(NumberFidelity.VALUE.numberNode("1.50")).isEqualTo(DecimalNode.valueOf(new BigDecimal("1.50")));
        assertThat(NumberFidelity.VALUE.numberNode("-0.0")).isEqualTo(new LiteralNumberNode("-0.0"));
        assertThat(NumberFidelity.VALUE.numberNode("7")).isEqualTo(IntNode.valueOf(7));
    }

    @ParameterizedTest
    @EnumSource(NumberFidelity.class)
    void refusesTextThatIsNotANumber(NumberFidelity fidelity) {
        assertThatThrownBy(() -> fidelity.numberNode("1.")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> fidelity.numberNode(null)).isInstanceOf(NullPointerException.class);
    }
}
