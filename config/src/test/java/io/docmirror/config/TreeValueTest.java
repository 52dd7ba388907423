package io.docmirror.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A value from a config file's tree is of its option's type, or refused naming the key, the value and the rule. */
class TreeValueTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String KEY = "store.http.primary-key";

    @Test
    void aStringOptionRefusesAListAMappingNullANumberAndABooleanWithoutShowingThem() {
        assertThatThrownBy(() -> text("[\"k1\",\"k2\"]", ConfigType.STRING))
                .hasMessage("Invalid value (a list) for configuration " + KEY + ": must be a string");
        assertThatThrownBy(() -> text("[]", ConfigType.STRING))
                .hasMessage("Invalid value (a list) for configuration " + KEY + ": must be a string");
        assertThatThrownBy(() -> text("{}", ConfigType.STRING))
                .hasMessage("Invalid value (a mapping) for configuration " + KEY + ": must be a string");
        assertThatThrownBy(() -> text("null", ConfigType.STRING))
                .hasMessage("Invalid value null for configuration " + KEY + ": must be a string (an empty value in "
                        + "YAML is null; \"\" is the empty string)");
        assertThatThrownBy(() -> text("12345", ConfigType.STRING))
                .hasMessage("Invalid value (a number) for configuration " + KEY + ": must be a string; put it in "
                        + "quotes");
        assertThatThrownBy(() -> text("true", ConfigType.STRING))
                .hasMessage("Invalid value (a boolean) for configuration " + KEY + ": must be a string; put it in "
                        + "quotes");
        assertThat(text("\"k1\"", ConfigType.STRING)).isEqualTo("k1");
        assertThat(text("\"\"", ConfigType.STRING)).isEmpty();
    }

    @Test
    void anIntegerOptionTakesAnIntegerOrTextSpellingOne() {
        assertThat(text("8081", ConfigType.INTEGER)).isEqualTo("8081");
        assertThat(text("\"8081\"", ConfigType.INTEGER)).isEqualTo("8081");
        assertThatThrownBy(() -> text("1.5", ConfigType.INTEGER))
                .hasMessage("Invalid value 1.5 for configuration " + KEY + ": must be an integer");
        assertThatThrownBy(() -> text("\"x\"", ConfigType.INTEGER))
                .hasMessage("Invalid value x for configuration " + KEY + ": must be an integer");
        assertThatThrownBy(() -> text("true", ConfigType.INTEGER))
                .hasMessage("Invalid value true for configuration " + KEY + ": must be an integer");
        assertThatThrownBy(() -> text("[8081]", ConfigType.INTEGER))
                .hasMessage("Invalid value (a list) for configuration " + KEY + ": must be an integer");
        assertThatThrownBy(() -> text("null", ConfigType.INTEGER)).hasMessageStartingWith(
                "Invalid value null for configuration " + KEY + ": must be an integer");
        assertThatThrownBy(() -> text("18446744073709551616", ConfigType.INTEGER))
                .hasMessage("Invalid value 18446744073709551616 for configuration " + KEY + ": must be an integer "
                        + "from -9223372036854775808 to 9223372036854775807");
    }

    @Test
    void aBooleanOptionTakesTrueOrFalse() {
        assertThat(text("false", ConfigType.BOOLEAN)).isEqualTo("false");
        assertThat(text("\"true\"", ConfigType.BOOLEAN)).isEqualTo("true");
        assertThatThrownBy(() -> text("\"yes\"", ConfigType.BOOLEAN))
                .hasMessage("Invalid value yes for configuration " + KEY + ": must be true or false");
        assertThatThrownBy(() -> text("1", ConfigType.BOOLEAN))
                .hasMessage("Invalid value 1 for configuration " + KEY + ": must be true or false");
    }

    @Test
    void aMappingOrAListIsNeverASingleValue() {
        assertThatThrownBy(() -> text("\"json\"", ConfigType.MAPPING)).hasMessage("Invalid value json for "
                + "configuration " + KEY + ": must be a mapping of names to values");
        assertThatThrownBy(() -> text("[\"json\"]", ConfigType.LIST)).hasMessage("Invalid value (a list) for "
                + "configuration " + KEY + ": must be a list of values");
    }

    private static String text(String json, ConfigType type) {
        return new TreeValue(KEY, tree(json)).textFor(type);
    }

    private static JsonNode tree(String json) {
        try {
            return JSON.readTree(json);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(json, e);
        }
    }
}
