package io.docmirror.sql;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SqlConfigTest {
    @Test
    void defaultsSuitOneMachine() {
        SqlConfig config = SqlConfig.defaults();

        assertThat(config.columnLimit()).isEqualTo(1000);
        assertThat(config.memoryLimit()).isEqualTo("4GB");
        assertThat(config.queryTimeout()).isEqualTo(Duration.ofMinutes(5));
        assertThat(config.refreshInterval()).isEqualTo(Duration.ofMillis(200));
        assertThat(config.spillLimit()).isEqualTo("4GB");
    }

    @Test
    void badValuesAreRefusedWithTheirKey() {
        assertThatThrownBy(() -> SqlConfig.fromProperties(Map.of("sql.column-limit", "0")))
                .hasMessage("Invalid value 0 for configuration sql.column-limit: must be at least 1");
        assertThatThrownBy(() -> SqlConfig.fromProperties(Map.of("sql.memory-limit", "lots")))
                .hasMessage("Invalid value lots for configuration sql.memory-limit: must be a size such as 512MB "
                        + "or 4GB");
        assertThatThrownBy(() -> SqlConfig.fromProperties(Map.of("sql.query-timeout-ms", "0")))
                .hasMessage("Invalid value 0 for configuration sql.query-timeout-ms: must be at least 1");
        assertThatThrownBy(() -> SqlConfig.fromProperties(Map.of("sql.threads", "-1")))
                .hasMessage("Invalid value -1 for configuration sql.threads: must be at least 0");
        assertThatThrownBy(() -> SqlConfig.fromProperties(Map.of("sql.refresh-interval-ms", "-1")))
                .hasMessage("Invalid value -1 for configuration sql.refresh-interval-ms: must be at least 0");
        assertThatThrownBy(() -> SqlConfig.fromProperties(Map.of("sql.spill-limit", "90%")))
                .hasMessage("Invalid value 90% for configuration sql.spill-limit: must be a size such as 512MB "
                        + "or 4GB");
        assertThatThrownBy(() -> SqlConfig.fromProperties(Map.of("sql.timeout", "5")))
                .hasMessage("Unknown configuration sql.timeout (did you mean sql.query-timeout-ms?);"
                        + " see docs/configuration.md");
    }
}
