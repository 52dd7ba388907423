package io.docmirror.config;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Every value a section is given is checked against its option's type, and every key against the declared ones. */
class ConfigSectionTest {
    private static final List<ConfigOption> OPTIONS = List.of(
            new ConfigOption("test.name", "docmirror", "A string."),
            new ConfigOption("test.port", "8081", "An integer."),
            new ConfigOption("test.enabled", "true", "A boolean."),
            new ConfigOption("test.retention-ms", "-1", "A long."),
            new ConfigOption("test.key", "", "An empty string."),
            ConfigOption.withoutDefault("test.overrides", ConfigType.MAPPING, "A mapping."));

    @Test
    void anOptionWithoutAnExplicitTypeTakesTheTypeOfItsDefault() {
        assertThat(OPTIONS).extracting(ConfigOption::type).containsExactly(ConfigType.STRING, ConfigType.INTEGER,
                ConfigType.BOOLEAN, ConfigType.INTEGER, ConfigType.STRING, ConfigType.MAPPING);
        assertThat(new ConfigOption("test.code", ConfigType.STRING, "0123", "A string that looks like a number.")
                .type()).isEqualTo(ConfigType.STRING);
    }

    @Test
    void aDefaultThatIsNotOfItsOptionsTypeIsADeclarationError() {
        assertThatThrownBy(() -> new ConfigOption("test.port", ConfigType.INTEGER, "auto", "..."))
                .hasMessage("Invalid value auto for configuration test.port: must be an integer");
    }

    @Test
    void valuesOfTheirTypesAreRead() {
        ConfigSection section = ConfigSection.of("test.", OPTIONS, Map.of("test.name", "x", "test.port", " 9000 ",
                "test.enabled", "false", "test.retention-ms", "604800000000", "other.key", "[not checked]"));

        assertThat(section.text("test.name")).isEqualTo("x");
        assertThat(section.intValue("test.port")).isEqualTo(9000);
        assertThat(section.booleanValue("test.enabled")).isFalse();
        assertThat(section.longValue("test.retention-ms")).isEqualTo(604_800_000_000L);
        assertThat(section.text("test.key")).isEmpty();
    }

    @Test
    void anIntegerOptionRefusesTextFractionsAndNumbersBeyondItsRange() {
        assertRefused(Map.of("test.port", "x"), "Invalid value x for configuration test.port: must be an integer");
        assertRefused(Map.of("test.port", "1.5"), "Invalid value 1.5 for configuration test.port: must be an integer");
        assertRefused(Map.of("test.port", "1e3"), "Invalid value 1e3 for configuration test.port: must be an integer");
        assertRefused(Map.of("test.port", ""), "Invalid value  for configuration test.port: must be an integer");
        assertRefused(Map.of("test.retention-ms", "99999999999999999999"), "Invalid value 99999999999999999999 for "
                + "configuration test.retention-ms: must be an integer from -9223372036854775808 to "
                + "9223372036854775807");
        ConfigSection beyondAnInt = ConfigSection.of("test.", OPTIONS, Map.of("test.port", "2147483648"));
        assertThatThrownBy(() -> beyondAnInt.intValue("test.port")).hasMessage("Invalid value 2147483648 for "
                + "configuration test.port: must be an integer from -2147483648 to 2147483647");
    }

    @Test
    void aBooleanOptionTakesOnlyTrueOrFalse() {
        for (String value : List.of("yes", "no", "on", "1", "TRUE", "")) {
            assertRefused(Map.of("test.enabled", value),
                    "Invalid value " + value + " for configuration test.enabled: must be true or false");
        }
    }

    @Test
    void anUnknownKeyIsRefusedWithTheNearestKnownOne() {
        assertRefused(Map.of("test.nmae", "x"),
                "Unknown configuration test.nmae (did you mean test.name?); see docs/configuration.md");
        assertRefused(Map.of("test.retention", "1"),
                "Unknown configuration test.retention (did you mean test.retention-ms?); see docs/configuration.md");
    }

    @Test
    void aMappingIsReadFromItsEntries() {
        ConfigSection section = ConfigSection.of("test.", OPTIONS, Map.of("test.overrides.$.meta", "json",
                "test.overrides.$.a.b", "drop"));

        assertThat(section.mapping(OPTIONS.get(5))).containsExactly(Map.entry("$.a.b", "drop"),
                Map.entry("$.meta", "json"));
        assertThat(ConfigSection.of("test.", OPTIONS, Map.of()).mapping(OPTIONS.get(5))).isEmpty();
        assertRefused(Map.of("test.overrides", "json"), "Invalid value json for configuration test.overrides: must "
                + "be a mapping of names to values");
    }

    @Test
    void anOptionReadAsAnotherTypeThanDeclaredIsAProgrammingError() {
        ConfigSection section = ConfigSection.of("test.", OPTIONS, Map.of());

        assertThatThrownBy(() -> section.text("test.port")).isInstanceOf(IllegalStateException.class)
                .hasMessage("Configuration test.port takes an integer, and is read as a string");
        assertThatThrownBy(() -> section.booleanValue("test.name")).isInstanceOf(IllegalStateException.class);
    }

    private static void assertRefused(Map<String, String> properties, String message) {
        assertThatThrownBy(() -> ConfigSection.of("test.", OPTIONS, properties))
                .isInstanceOf(IllegalArgumentException.class).hasMessage(message);
    }
}
