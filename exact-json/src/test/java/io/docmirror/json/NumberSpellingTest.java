package io.docmirror.json;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class NumberSpellingTest {
    private static final String THOUSAND_DIGITS = "9".repeat(NumberSpelling.MAX_PARSED_DIGITS);

    @ParameterizedTest
    @CsvSource({
        "0,                    INTEGER",
        "7,                    INTEGER",
        "-7,                   INTEGER",
        "9223372036854775808,  INTEGER",
        "0.0,                  DECIMAL",
        "1.50,                 DECIMAL",
        "1e2,                  DECIMAL",
        "-1E+2,                DECIMAL",
        "0.0000001,            DECIMAL",
        "1e400,                DECIMAL",
        "1e2147483647,         DECIMAL",
        "1e-2147483647,        DECIMAL",
        "1e000000000000002,    DECIMAL",
        "-0,                   NEGATIVE_ZERO",
        "-0.0,                 NEGATIVE_ZERO",
        "-0e5,                 NEGATIVE_ZERO",
        "-0e-2147483648,       NEGATIVE_ZERO",
        "1e-2147483648,        TEXT_ONLY",
        "1.5e-2147483647,      TEXT_ONLY",
        "1e99999999999,        TEXT_ONLY"})
    void tellsHowANumberCanBeHeld(String text, NumberSpelling spelling) {
        assertThat(NumberSpelling.of(text)).isEqualTo(spelling);
        assertThat(NumberSpelling.ofParsed(text.toCharArray(), 0, text.length())).isEqualTo(spelling);
    }

    @Test
    void countsSignificantDigitsOnly() {
        assertThat(NumberSpelling.of(THOUSAND_DIGITS)).isEqualTo(NumberSpelling.INTEGER);
        assertThat(NumberSpelling.of(THOUSAND_DIGITS + "9")).isEqualTo(NumberSpelling.TEXT_ONLY);
        assertThat(NumberSpelling.of("0." + "0".repeat(5000) + "1")).isEqualTo(NumberSpelling.DECIMAL);
        assertThat(NumberSpelling.of("1." + THOUSAND_DIGITS)).isEqualTo(NumberSpelling.TEXT_ONLY);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "-", "01", "-01", "1.", ".5", "1e", "1e+", "+1", "NaN", "Infinity", "1.5x", "0x10",
        "1 "})
    void refusesTextThatIsNotAJsonNumber(String text) {
        assertThatThrownBy(() -> NumberSpelling.of(text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("is not a JSON number");
    }

    @Test
    void readsPartOfAnArray() {
        char[] chars = "[1e2,-0.0]".toCharArray();

        assertThat(NumberSpelling.of(chars, 1, 3)).isEqualTo(NumberSpelling.DECIMAL);
        assertThat(NumberSpelling.ofParsed(chars, 5, 4)).isEqualTo(NumberSpelling.NEGATIVE_ZERO);
        assertThat(NumberSpelling.ofParsed(chars, 1, 1)).isEqualTo(NumberSpelling.INTEGER);
    }

    /** The glance at a parsed number's end must agree with the full pass for every spelling near its limits. */
    @Test
    void theQuickReadOfParsedNumbersAgreesWithTheFullOne() {
        List<String> numbers = new ArrayList<>();
        for (String sign : new String[] {"", "-"}) {
            for (String whole : new String[] {"0", "5", "12", "9".repeat(998), "9".repeat(999),
                    THOUSAND_DIGITS, THOUSAND_DIGITS + "1"}) {
                for (String fraction : new String[] {"", ".0", ".25", "." + "0".repeat(999) + "1"}) {
                    for (String exponent : new String[] {"", "e0", "E+5", "e-5", "e123456789", "e+12345678",
                            "e-123456789", "e1234567890", "e-2147483648", "e2147483647", "e-2147482648",
                            "e" + "0".repeat(20) + "7"}) {
                        numbers.add(sign + whole + fraction + exponent);
                    }
                }
            }
        }
        for (String number : numbers) {
            assertThat(NumberSpelling.ofParsed(number.toCharArray(), 0, number.length()))
                    .as(number.length() > 60 ? number.substring(0, 60) + "..." : number)
                    .isEqualTo(NumberSpelling.of(number));
        }
    }

    @Test
    void onlyIntegersAndDecimalsAreParseable() {
        assertThat(NumberSpelling.INTEGER.isParseable()).isTrue();
        assertThat(NumberSpelling.DECIMAL.isParseable()).isTrue();
        assertThat(NumberSpelling.NEGATIVE_ZERO.isParseable()).isFalse();
        assertThat(NumberSpelling.TEXT_ONLY.isParseable()).isFalse();
    }
}
