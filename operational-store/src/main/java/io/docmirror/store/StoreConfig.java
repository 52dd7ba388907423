package io.docmirror.store;

import io.docmirror.config.ConfigOption;
import io.docmirror.config.ConfigSection;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The operational store's settings. Every option is declared once in {@link #OPTIONS} with its key, default and
 * description; {@code docs/configuration.md} lists them all (a test keeps the two in step).
 *
 * @param syncWrites fsync the write-ahead log before a write is acknowledged (survives power loss); when false a
 *        write still survives a killed process, but not a crash of the machine
 * @param reaperInterval how often the TTL reaper removes expired items
 * @param reaperBatchSize how many expired items the reaper removes in one atomic write
 * @param httpBind the address the HTTP API listens on; any address but loopback requires keys
 * @param httpPort the HTTP API's port
 * @param httpThreads threads serving HTTP requests
 * @param primaryKey the read-write key clients send as {@code Authorization: Bearer <key>}; empty for none
 * @param readOnlyKey a key that allows only reads; empty for none
 */
public record StoreConfig(
        boolean syncWrites,
        Duration reaperInterval,
        int reaperBatchSize,
        String httpBind,
        int httpPort,
        int httpThreads,
        Optional<String> primaryKey,
        Optional<String> readOnlyKey,
        long changeLogRetentionMs,
        long changeLogRetentionEvents) {
    public static final List<ConfigOption> OPTIONS = List.of(
            new ConfigOption("store.sync-writes", "true",
                    "fsync the write-ahead log before acknowledging a write. false keeps writes safe from a killed "
                            + "process but not from a power loss, and is faster for small writes."),
            new ConfigOption("store.ttl.reaper-interval-ms", "1000",
                    "How often the background TTL reaper physically removes expired items (they are invisible "
                            + "to reads as soon as they expire)."),
            new ConfigOption("store.ttl.reaper-batch-size", "1000",
                    "How many expired items the reaper removes in one atomic write."),
            new ConfigOption("store.http.bind", "127.0.0.1",
                    "Address the store's HTTP API listens on. Any address other than loopback requires "
                            + "store.http.primary-key."),
            new ConfigOption("store.http.port", "8081", "Port of the store's HTTP API."),
            new ConfigOption("store.http.threads", "16", "Threads that serve HTTP requests."),
            new ConfigOption("store.http.primary-key", "",
                    "Read-write key: clients send 'Authorization: Bearer <key>'. Empty: no key (loopback only)."),
            new ConfigOption("store.http.read-only-key", "",
                    "Read-only key: allows GET requests only. Empty: none."),
            new ConfigOption("store.change-log.retention-ms", "604800000",
                    "How long change events stay readable (all versions and deletes), in milliseconds; -1 keeps "
                            + "them forever. The default, 7 days, is the shorter of Cosmos DB's continuous-backup "
                            + "windows. A reader whose position is older gets an error naming the oldest position "
                            + "left, never a silent gap."),
            new ConfigOption("store.change-log.retention-events", "-1",
                    "At most this many events are kept per log partition (feed range); -1: no limit. Applies "
                            + "together with store.change-log.retention-ms: an event goes when either says so."));

    public StoreConfig {
        if (reaperInterval.isNegative() || reaperInterval.isZero()) {
            throw ConfigSection.invalid("store.ttl.reaper-interval-ms", reaperInterval.toMillis(), "must be positive");
        }
        if (reaperBatchSize < 1) {
            throw ConfigSection.invalid("store.ttl.reaper-batch-size", reaperBatchSize, "must be at least 1");
        }
        if (httpPort < 0 || httpPort > 65535) {
            throw ConfigSection.invalid("store.http.port", httpPort, "must be between 0 and 65535");
        }
        if (httpThreads < 1) {
            throw ConfigSection.invalid("store.http.threads", httpThreads, "must be at least 1");
        }
        primaryKey = primaryKey.filter(key -> !key.isEmpty());
        readOnlyKey = readOnlyKey.filter(key -> !key.isEmpty());
        if (readOnlyKey.isPresent() && primaryKey.isEmpty()) {
            throw ConfigSection.invalid("store.http.read-only-key", "(hidden)", "needs store.http.primary-key as well");
        }
        if (changeLogRetentionMs < 1 && changeLogRetentionMs != -1) {
            throw ConfigSection.invalid("store.change-log.retention-ms", changeLogRetentionMs, "must be positive, or -1 for forever");
        }
        if (changeLogRetentionEvents < 1 && changeLogRetentionEvents != -1) {
            throw ConfigSection.invalid("store.change-log.retention-events", changeLogRetentionEvents,
                    "must be positive, or -1 for no limit");
        }
    }

    public static StoreConfig defaults() {
        return fromProperties(Map.of());
    }

    /**
     * Reads the options from flat key/value pairs (a config file's {@code store.*} entries); missing keys take
     * their defaults.
     *
     * @throws IllegalArgumentException "Invalid value X for configuration Y: reason"
     */
    public static StoreConfig fromProperties(Map<String, String> properties) {
        ConfigSection section = ConfigSection.of("store.", OPTIONS, properties);
        return new StoreConfig(
                section.booleanValue("store.sync-writes"),
                Duration.ofMillis(section.intValue("store.ttl.reaper-interval-ms")),
                section.intValue("store.ttl.reaper-batch-size"),
                section.text("store.http.bind"),
                section.intValue("store.http.port"),
                section.intValue("store.http.threads"),
                Optional.of(section.text("store.http.primary-key")),
                Optional.of(section.text("store.http.read-only-key")),
                section.longValue("store.change-log.retention-ms"),
                section.longValue("store.change-log.retention-events"));
    }

    public StoreConfig withSyncWrites(boolean sync) {
        return new StoreConfig(sync, reaperInterval, reaperBatchSize, httpBind, httpPort, httpThreads, primaryKey,
                readOnlyKey, changeLogRetentionMs, changeLogRetentionEvents);
    }

    public StoreConfig withHttp(String bind, int port) {
        return new StoreConfig(syncWrites, reaperInterval, reaperBatchSize, bind, port, httpThreads, primaryKey,
                readOnlyKey, changeLogRetentionMs, changeLogRetentionEvents);
    }

    public StoreConfig withKeys(String primary, String readOnly) {
        return new StoreConfig(syncWrites, reaperInterval, reaperBatchSize, httpBind, httpPort, httpThreads,
                Optional.ofNullable(primary), Optional.ofNullable(readOnly), changeLogRetentionMs,
                changeLogRetentionEvents);
    }

    /**
     * @param retentionMs how long events stay readable, -1 for forever
     * @param retentionEvents how many events a log partition keeps at most, -1 for no limit
     */
    public StoreConfig withChangeLogRetention(long retentionMs, long retentionEvents) {
        return new StoreConfig(syncWrites, reaperInterval, reaperBatchSize, httpBind, httpPort, httpThreads,
                primaryKey, readOnlyKey, retentionMs, retentionEvents);
    }

    @Override
    public String toString() {
        // Keys never appear in logs.
        return "StoreConfig[syncWrites=" + syncWrites + ", reaperInterval=" + reaperInterval + ", reaperBatchSize="
                + reaperBatchSize + ", httpBind=" + httpBind + ", httpPort=" + httpPort + ", httpThreads=" + httpThreads
                + ", primaryKey=" + (primaryKey.isPresent() ? "(set)" : "(none)")
                + ", readOnlyKey=" + (readOnlyKey.isPresent() ? "(set)" : "(none)")
                + ", changeLogRetentionMs=" + changeLogRetentionMs + ", changeLogRetentionEvents="
                + changeLogRetentionEvents + "]";
    }
}
