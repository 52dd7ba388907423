package io.docmirror.sql;

import io.docmirror.sql.flight.FlightConfig;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class FlightConfigTest {
    @Test
    void defaultsListenOnLoopbackWithAPasswordMadeAtStart() {
        FlightConfig config = FlightConfig.defaults();

        assertThat(config.bind()).isEqualTo("127.0.0.1");
        assertThat(config.port()).isEqualTo(32010);
        assertThat(config.username()).isEqualTo("docmirror");
        assertThat(config.password()).isEmpty();
        assertThat(config.tls()).isFalse();
        assertThat(config.allowPlaintext()).isFalse();
        assertThat(config.ticketLifetime()).isEqualTo(Duration.ofMinutes(5));
        assertThat(config.maxTicketsPerClient()).isEqualTo(100);
        assertThat(config.maxTickets()).isEqualTo(10_000);
    }

    @Test
    void badValuesAreRefusedWithTheirKey() {
        assertThatThrownBy(() -> FlightConfig.fromProperties(Map.of("flight.port", "70000")))
                .hasMessage("Invalid value 70000 for configuration flight.port: must be from 0 to 65535");
        assertThatThrownBy(() -> FlightConfig.fromProperties(Map.of("flight.tls-certificate", "server.crt")))
                .hasMessage("Invalid value server.crt for configuration flight.tls-certificate: TLS needs "
                        + "flight.tls-private-key as well");
        assertThatThrownBy(() -> FlightConfig.fromProperties(Map.of("flight.max-tickets", "10")))
                .hasMessage("Invalid value 10 for configuration flight.max-tickets: must be at least "
                        + "flight.max-tickets-per-client (100)");
        assertThatThrownBy(() -> FlightConfig.fromProperties(Map.of("flight.ticket-lifetime-ms", "0")))
                .hasMessage("Invalid value 0 for configuration flight.ticket-lifetime-ms: must be at least 1");
        assertThatThrownBy(() -> FlightConfig.fromProperties(Map.of("flight.max-tickets-per-client", "0")))
                .hasMessage("Invalid value 0 for configuration flight.max-tickets-per-client: must be at least 1");
        assertThatThrownBy(() -> FlightConfig.fromProperties(Map.of("flight.batch-rows", "0")))
                .hasMessage("Invalid value 0 for configuration flight.batch-rows: must be at least 1");
        assertThatThrownBy(() -> FlightConfig.fromProperties(Map.of("flight.user", "me")))
                .hasMessage("Unknown configuration flight.user (did you mean flight.username?);"
                        + " see docs/configuration.md");
    }
}
