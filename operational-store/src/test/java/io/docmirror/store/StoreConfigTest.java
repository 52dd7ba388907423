package io.docmirror.store;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class StoreConfigTest {
    static final String PRIMARY_KEY = "pR1m4ry-k3y_0f-32-characters-at-least";
    static final String READ_ONLY_KEY = "r34d+0nly/k3y0f32charactersatleast==";

    @Test
    void defaults() {
        assertThat(StoreConfig.defaults()).isEqualTo(new StoreConfig(true, Duration.ofSeconds(1), 1000, "127.0.0.1", 8081,
                16, Optional.empty(), Optional.empty(), 604_800_000L, -1, 1024, Duration.ofSeconds(30),
                Duration.ofSeconds(60), 1000, 10, Duration.ofSeconds(2), false, Optional.empty(), "", true,
                10_000_000L, Duration.ofSeconds(5), 16, Duration.ofMinutes(10)));
    }

    @Test
    void explicitMapping() {
        StoreConfig config = StoreConfig.fromProperties(Map.of(
                "store.sync-writes", "false",
                "store.ttl.reaper-interval-ms", "250",
                "store.ttl.reaper-batch-size", "10",
                "store.http.bind", "0.0.0.0",
                "store.http.port", "9000",
                "store.http.threads", "4",
                "store.http.primary-key", PRIMARY_KEY,
                "store.http.read-only-key", READ_ONLY_KEY,
                "store.change-log.retention-ms", "3600000",
                "store.change-log.retention-events", "5000"));
        StoreConfig limits = StoreConfig.fromProperties(Map.of(
                "store.http.max-connections", "64",
                "store.http.request-timeout-ms", "1500",
                "store.http.idle-timeout-ms", "2500",
                "store.http.max-page-items", "50",
                "store.http.login-failures", "3",
                "store.http.login-failure-delay-ms", "4000",
                "store.http.accept-emulator-key", "true",
                "store.http.tls-keystore", "/etc/docmirror/server.p12",
                "store.http.tls-keystore-password", "secret",
                "store.http.cosmos-all-versions-and-deletes", "false"));
        StoreConfig snapshots = StoreConfig.fromProperties(Map.of(
                "store.http.max-snapshots", "3",
                "store.http.snapshot-max-lease-ms", "5000"));

        assertThat(config).isEqualTo(new StoreConfig(false, Duration.ofMillis(250), 10, "0.0.0.0", 9000, 4,
                Optional.of(PRIMARY_KEY), Optional.of(READ_ONLY_KEY), 3_600_000L, 5000, 1024, Duration.ofSeconds(30),
                Duration.ofSeconds(60), 1000, 10, Duration.ofSeconds(2), false, Optional.empty(), "", true,
                10_000_000L, Duration.ofSeconds(5), 16, Duration.ofMinutes(10)));
        assertThat(limits).isEqualTo(new StoreConfig(true, Duration.ofSeconds(1), 1000, "127.0.0.1", 8081, 16,
                Optional.empty(), Optional.empty(), 604_800_000L, -1, 64, Duration.ofMillis(1500),
                Duration.ofMillis(2500), 50, 3, Duration.ofMillis(4000), true, Optional.of("/etc/docmirror/server.p12"),
                "secret", false, 10_000_000L, Duration.ofSeconds(5), 16, Duration.ofMinutes(10)));
        assertThat(snapshots).isEqualTo(StoreConfig.defaults().withSnapshots(3, Duration.ofSeconds(5)));
    }

    @Test
    void invalidValuesNameTheKey() {
        assertThatThrownBy(() -> StoreConfig.fromProperties(Map.of("store.http.port", "http")))
                .hasMessage("Invalid value http for configuration store.http.port: must be an integer");
        assertThatThrownBy(() -> StoreConfig.fromProperties(Map.of("store.sync-writes", "yes")))
                .hasMessage("Invalid value yes for configuration store.sync-writes: must be true or false");
        assertThatThrownBy(() -> StoreConfig.fromProperties(Map.of("store.sync-write", "true")))
                .hasMessage("Unknown configuration store.sync-write (did you mean store.sync-writes?);"
                        + " see docs/configuration.md");
    }

    @Test
    void httpLimitsMustBePositive() {
        for (String option : new String[] {"store.http.max-connections", "store.http.request-timeout-ms",
                "store.http.idle-timeout-ms", "store.http.max-page-items", "store.http.login-failures",
                "store.http.login-failure-delay-ms"}) {
            assertThatThrownBy(() -> StoreConfig.fromProperties(Map.of(option, "0")))
                    .as(option)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("Invalid value 0 for configuration " + option + ": must be");
        }
        assertThatThrownBy(() -> StoreConfig.fromProperties(Map.of("store.http.request-timeout-ms",
                "9223372036854775807")))
                .hasMessage("Invalid value 9223372036854775807 for configuration store.http.request-timeout-ms: must "
                        + "be from 1 to 86400000");
        assertThatThrownBy(() -> StoreConfig.fromProperties(Map.of("store.http.max-connections", "many")))
                .hasMessage("Invalid value many for configuration store.http.max-connections: must be an integer");
    }

    /** Keys are secrets: strong enough to withstand guessing, safe in a header, and never repeated in an error. */
    @Test
    void weakOrMalformedKeysAreRefusedNamingTheOptionAndTheRule() {
        assertThatThrownBy(() -> StoreConfig.fromProperties(Map.of("store.http.primary-key", "primary-secret")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Invalid value (hidden, 14 characters) for configuration store.http.primary-key: must be "
                        + "32 to 512 characters long, e.g. from 'openssl rand -base64 32'");
        assertThatThrownBy(() -> StoreConfig.defaults().withKeys("x".repeat(513), null))
                .hasMessageContaining("store.http.primary-key: must be 32 to 512 characters long");
        for (String malformed : new String[] {PRIMARY_KEY + " with spaces", PRIMARY_KEY + ":colon",
                PRIMARY_KEY + "\u00e9", "==" + PRIMARY_KEY, PRIMARY_KEY + "\r\nX-Injected: 1", "[" + PRIMARY_KEY + "]"}) {
            assertThatThrownBy(() -> StoreConfig.fromProperties(Map.of("store.http.primary-key", malformed)))
                    .as(malformed)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageEndingWith("for configuration store.http.primary-key: must be base64 or base64url: "
                            + "only A-Z a-z 0-9 + / - _, with '=' padding at the end only")
                    .hasMessageNotContaining(PRIMARY_KEY);
        }
        assertThatThrownBy(() -> StoreConfig.fromProperties(Map.of("store.http.primary-key", PRIMARY_KEY,
                "store.http.read-only-key", "short")))
                .hasMessageContaining("for configuration store.http.read-only-key: must be 32 to 512 characters");
        assertThatThrownBy(() -> StoreConfig.defaults().withKeys(PRIMARY_KEY, PRIMARY_KEY))
                .hasMessage("Invalid value (hidden) for configuration store.http.read-only-key: must differ from "
                        + "store.http.primary-key, or it would allow writes");

        assertThat(StoreConfig.defaults().withKeys(PRIMARY_KEY, READ_ONLY_KEY).primaryKey()).contains(PRIMARY_KEY);
    }

    @Test
    void aMistypedKeyOrValueIsRefusedNamingTheKey() {
        assertThatThrownBy(() -> StoreConfig.fromProperties(Map.of("store.http.primary-kye", "k")))
                .hasMessage("Unknown configuration store.http.primary-kye (did you mean store.http.primary-key?); "
                        + "see docs/configuration.md");
        assertThatThrownBy(() -> StoreConfig.fromProperties(Map.of("store.http.port", "1.5")))
                .hasMessage("Invalid value 1.5 for configuration store.http.port: must be an integer");
        assertThatThrownBy(() -> StoreConfig.fromProperties(Map.of("store.sync-writes", "on")))
                .hasMessage("Invalid value on for configuration store.sync-writes: must be true or false");
    }
}
