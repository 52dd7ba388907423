package io.docmirror.config;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ConfigRuleTest {
    private static final ConfigOption PORT = new ConfigOption("x.port", "8081", "A port.")
            .withRule(ConfigRule.between(0, 65535));
    private static final ConfigOption RETENTION = new ConfigOption("x.retention-ms", "-1", "How long.")
            .withRule(ConfigRule.atLeastOr(1, -1, "forever"));
    private static final ConfigOption CODEC = new ConfigOption("x.codec", "zstd", "Compression.")
            .withRule(ConfigRule.oneOf("zstd", "gzip"));

    @Test
    void aValueInsideTheRulePasses() {
        assertThatCode(() -> {
            PORT.check(0);
            PORT.check(65535);
            RETENTION.check(-1);
            RETENTION.check(1);
            CODEC.check(" GZIP ");
        }).doesNotThrowAnyException();
    }

    @Test
    void aValueOutsideTheRuleIsRefusedNamingTheOptionAndTheRule() {
        assertThatThrownBy(() -> PORT.check(65536)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Invalid value 65536 for configuration x.port: must be from 0 to 65535");
        assertThatThrownBy(() -> RETENTION.check(0))
                .hasMessage("Invalid value 0 for configuration x.retention-ms: must be -1 (forever) or at least 1");
        assertThatThrownBy(() -> CODEC.check("snappy"))
                .hasMessage("Invalid value snappy for configuration x.codec: must be one of zstd, gzip");
        // A word rule takes no number.
        assertThatThrownBy(() -> CODEC.check(1)).hasMessage("Invalid value 1 for configuration x.codec: must be one "
                + "of zstd, gzip");
    }

    @Test
    void aDefaultThatBreaksItsOwnRuleIsADeclarationError() {
        assertThatThrownBy(() -> new ConfigOption("x.threads", "0", "Threads.").withRule(ConfigRule.atLeast(1)))
                .hasMessage("Invalid value 0 for configuration x.threads: must be at least 1");
    }
}
