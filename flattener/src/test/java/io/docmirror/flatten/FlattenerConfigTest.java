package io.docmirror.flatten;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class FlattenerConfigTest {
    @Test
    void defaults() {
        assertThat(FlattenerConfig.defaults("orders")).isEqualTo(new FlattenerConfig("orders", TypePolicy.LOSSLESS,
                10, 1000, false, Map.of()));
    }

    @Test
    void readsTheConfigFileEntries() {
        FlattenerConfig config = FlattenerConfig.fromProperties("orders", Map.of(
                "flatten.type-policy", "well-defined",
                "flatten.max-depth", "3",
                "flatten.column-limit", "200",
                "flatten.detect-timestamps", "true",
                "flatten.overrides.$.items[*].attributes", "json",
                "store.sync-writes", "false"));

        assertThat(config).isEqualTo(new FlattenerConfig("orders", TypePolicy.WELL_DEFINED, 3, 200, true,
                Map.of(JsonPath.parse("$.items[*].attributes"), PathOverride.JSON)));
    }

    @Test
    void refusesUnknownKeysAndBadValuesNamingTheKeyAndTheRule() {
        assertRefused(Map.of("flatten.max-dept", "3"),
                "Unknown configuration flatten.max-dept (did you mean flatten.max-depth?); see docs/configuration.md");
        assertRefused(Map.of("flatten.max-depth", "deep"),
                "Invalid value deep for configuration flatten.max-depth: must be an integer");
        assertRefused(Map.of("flatten.max-depth", "2.5"),
                "Invalid value 2.5 for configuration flatten.max-depth: must be an integer");
        assertRefused(Map.of("flatten.max-depth", "0"),
                "Invalid value 0 for configuration flatten.max-depth: must be at least 1");
        assertRefused(Map.of("flatten.column-limit", "9"),
                "Invalid value 9 for configuration flatten.column-limit: must be at least 10");
        assertRefused(Map.of("flatten.detect-timestamps", "yes"),
                "Invalid value yes for configuration flatten.detect-timestamps: must be true or false");
        assertRefused(Map.of("flatten.type-policy", "strict"), "Invalid value strict for configuration "
                + "flatten.type-policy: must be one of lossless, well-defined, full-fidelity");
        assertRefused(Map.of("flatten.overrides.$.a", "hide"), "Invalid value hide for configuration "
                + "flatten.overrides.$.a: must be one of json, child-table, flatten, drop");
        assertRefused(Map.of("flatten.overrides", "json"), "Invalid value json for configuration flatten.overrides: "
                + "must be a mapping of names to values");
        assertRefused(Map.of("flatten.overrides.meta", "json"), "Invalid configuration flatten.overrides.meta: "
                + "Cannot parse JSON path 'meta': it must start with $");
    }

    private static void assertRefused(Map<String, String> properties, String message) {
        assertThatThrownBy(() -> FlattenerConfig.fromProperties("orders", properties))
                .isInstanceOf(IllegalArgumentException.class).hasMessage(message);
    }
}
