package io.docmirror.store;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

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
    public static final List<Option> OPTIONS = List.of(
            new Option("store.sync-writes", "true",
                    "fsync the write-ahead log before acknowledging a write. false keeps writes safe from a killed "
                            + "process but not from a power loss, and is faster for small writes."),
            new Option("store.ttl.reaper-interval-ms", "1000",
                    "How often the background TTL reaper physically removes expired items (they are invisible "
                            + "to reads as soon as they expire)."),
            new Option("store.ttl.reaper-batch-size", "1000",
                    "How many expired items the reaper removes in one atomic write."),
            new Option("store.http.bind", "127.0.0.1",
                    "Address the store's HTTP API listens on. Any address other than loopback requires "
                            + "store.http.primary-key."),
            new Option("store.http.port", "8081", "Port of the store's HTTP API."),
            new Option("store.http.threads", "16", "Threads that serve HTTP requests."),
            new Option("store.http.primary-key", "",
                    "Read-write key: clients send 'Authorization: Bearer <key>'. Empty: no key (loopback only)."),
            new Option("store.http.read-only-key", "",
                    "Read-only key: allows GET requests only. Empty: none."),
            new Option("store.change-log.retention-ms", "604800000",
                    "How long change events stay readable (all versions and deletes), in milliseconds; -1 keeps "
                            + "them forever. The default, 7 days, is the shorter of Cosmos DB's continuous-backup "
                            + "windows. A reader whose position is older gets an error naming the oldest position "
                            + "left, never a silent gap."),
            new Option("store.change-log.retention-events", "-1",
                    "At most this many events are kept per log partition (feed range); -1: no limit. Applies "
                            + "together with store.change-log.retention-ms: an event goes when either says so."));

    /** One configuration option: its key, default value (as text) and what it does. */
    public record Option(String key, String defaultValue, String description) {
    }

    public StoreConfig {
        if (reaperInterval.isNegative() || reaperInterval.isZero()) {
            throw invalid("store.ttl.reaper-interval-ms", reaperInterval.toMillis(), "must be positive");
        }
        if (reaperBatchSize < 1) {
            throw invalid("store.ttl.reaper-batch-size", reaperBatchSize, "must be at least 1");
        }
        if (httpPort < 0 || httpPort > 65535) {
            throw invalid("store.http.port", httpPort, "must be between 0 and 65535");
        }
        if (httpThreads < 1) {
            throw invalid("store.http.threads", httpThreads, "must be at least 1");
        }
        primaryKey = primaryKey.filter(key -> !key.isEmpty());
        readOnlyKey = readOnlyKey.filter(key -> !key.isEmpty());
        if (readOnlyKey.isPresent() && primaryKey.isEmpty()) {
            throw invalid("store.http.read-only-key", "(hidden)", "needs store.http.primary-key as well");
        }
        if (changeLogRetentionMs < 1 && changeLogRetentionMs != -1) {
            throw invalid("store.change-log.retention-ms", changeLogRetentionMs, "must be positive, or -1 for forever");
        }
        if (changeLogRetentionEvents < 1 && changeLogRetentionEvents != -1) {
            throw invalid("store.change-log.retention-events", changeLogRetentionEvents,
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
        for (String key : properties.keySet()) {
            if (key.startsWith("store.") && OPTIONS.stream().noneMatch(option -> option.key().equals(key))) {
                throw new IllegalArgumentException("Unknown configuration " + key + "; see docs/configuration.md");
            }
        }
        Function<String, String> value = key -> properties.getOrDefault(key, OPTIONS.stream()
                .filter(option -> option.key().equals(key)).findFirst().orElseThrow().defaultValue());
        return new StoreConfig(
                parseBoolean("store.sync-writes", value.apply("store.sync-writes")),
                Duration.ofMillis(parseInt("store.ttl.reaper-interval-ms", value.apply("store.ttl.reaper-interval-ms"))),
                parseInt("store.ttl.reaper-batch-size", value.apply("store.ttl.reaper-batch-size")),
                value.apply("store.http.bind"),
                parseInt("store.http.port", value.apply("store.http.port")),
                parseInt("store.http.threads", value.apply("store.http.threads")),
                Optional.of(value.apply("store.http.primary-key")),
                Optional.of(value.apply("store.http.read-only-key")),
                parseLong("store.change-log.retention-ms", value.apply("store.change-log.retention-ms")),
                parseLong("store.change-log.retention-events", value.apply("store.change-log.retention-events")));
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

    private static boolean parseBoolean(String key, String text) {
        if (!text.equals("true") && !text.equals("false")) {
            throw invalid(key, text, "must be true or false");
        }
        return Boolean.parseBoolean(text);
    }

    private static long parseLong(String key, String text) {
        try {
            return Long.parseLong(text.trim());
        }
        catch (NumberFormatException e) {
            throw invalid(key, text, "must be an integer");
        }
    }

    private static int parseInt(String key, String text) {
        try {
            return Integer.parseInt(text.trim());
        }
        catch (NumberFormatException e) {
            throw invalid(key, text, "must be an integer");
        }
    }

    private static IllegalArgumentException invalid(String key, Object value, String reason) {
        return new IllegalArgumentException("Invalid value " + value + " for configuration " + key + ": " + reason);
    }
}
