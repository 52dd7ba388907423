package io.docmirror.flatten;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.node.DoubleNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What one number needs, read from its JSON text as the walker reads it, and from a tree as lists are. */
class NumberShapeTest {
    private static NumberShape read(String number) throws IOException {
        try (JsonParser parser = JsonText.parser(number.getBytes(StandardCharsets.UTF_8))) {
            parser.nextToken();
            return new NumberShape().read(parser);
        }
    }

    @ParameterizedTest
    @CsvSource({
        "7,                    BIGINT,  7",
        "9223372036854775808,  DECIMAL, 9223372036854775808",
        "0.1,                  DOUBLE,  0.1",
        "1.000000000000000005, DECIMAL, 1.000000000000000005",
        "1e400,                NUMBER,  1E+400",
        "1e2147483647,         NUMBER,  1E+2147483647",
        "-1e2147483647,        NUMBER,  -1E+2147483647",
        "1e-2147483648,        NUMBER,  1e-2147483648",
        "1e-10000000,          NUMBER,  1E-10000000",
        "-0,                   DOUBLE,  -0",
        "-0.0,                 DOUBLE,  -0.0",
        "-0e-2147483648,       DOUBLE,  -0e-2147483648",
        "0.0,                  DOUBLE,  0.0"})
    void theNaturalTypeAndLiteralOfANumber(String number, ValueTag tag, String literal) throws IOException {
        NumberShape shape = read(number);

        assertThat(shape.naturalTag()).isEqualTo(tag);
        assertThat(shape.literal()).isEqualTo(literal);
        assertThat(JsonText.write(shape.toNode())).isEqualTo(literal);
    }

    @Test
    void aNegativeZeroIsMinusZeroAsADoubleAndFitsNoLongOrDecimal() throws IOException {
        for (NumberShape shape : new NumberShape[] {read("-0"), read("-0.000"),
                NumberShape.of(DoubleNode.valueOf(-0.0)),
                NumberShape.of(JsonText.read("[-0.0]").get(0))}) {
            assertThat(shape.fitsLong).isFalse();
            assertThat(shape.fitsDecimal()).isFalse();
            assertThat(shape.exactInDouble).isTrue();
            assertThat(Double.doubleToRawLongBits((Double) shape.valueAs(ColumnType.DOUBLE)))
                    .isEqualTo(Double.doubleToRawLongBits(-0.0d));
            assertThatThrownBy(() -> shape.valueAs(ColumnType.decimal(2))).isInstanceOf(IllegalStateException.class);
        }
    }

    @Test
    void aNumberOfMoreThanAThousandDigitsIsItsTextAndFitsNothing() throws IOException {
        String digits = "1".repeat(1001);
        NumberShape shape = read(digits);

        assertThat(shape.naturalTag()).isEqualTo(ValueTag.NUMBER);
        assertThat(shape.literal()).isEqualTo(digits);
        assertThat(read("1".repeat(1000)).literal()).isEqualTo("1".repeat(1000));
        assertThat(read("1".repeat(38)).valueAs(ColumnType.decimal(0))).isEqualTo(new BigDecimal("1".repeat(38)));
    }

    @Test
    void aHugeExponentOverflowsNoDigitCount() throws IOException {
        NumberShape huge = read("1e2147483647");

        assertThat(huge.integerDigits).isEqualTo(Integer.MAX_VALUE);
        assertThat(huge.scale).isZero();
        assertThat(huge.fitsDecimal()).isFalse();
        assertThat(new NumberFacts(false).typeWith(huge)).isNull();
    }
}
