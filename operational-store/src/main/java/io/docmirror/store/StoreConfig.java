package io.docmirror.store;

import io.docmirror.config.ConfigOption;
import io.docmirror.config.ConfigSection;
import io.docmirror.config.ConfigType;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

import static java.util.Objects.requireNonNull;

/**
 * The operational store's settings. Every option is declared once in {@link #OPTIONS} with its key, type, default
 * and description, and its value checked in the constructor; {@code docs/configuration.md} lists them all (a test
 * keeps the two in step).
 *
 * @param syncWrites fsync the write-ahead log before a write is acknowledged (survives power loss); when false a
 *        write still survives a killed process, but not a crash of the machine
 * @param reaperInterval how often the TTL reaper removes expired items
 * @param reaperBatchSize how many expired items the reaper removes in one atomic write
 * @param httpBind the address the HTTP API listens on; any address but 127.0.0.1 and ::1 requires keys
 * @param httpPort the HTTP API's port
 * @param httpThreads threads that run the store work of HTTP requests (connections are served by event loops)
 * @param primaryKey the read-write key clients send as {@code Authorization: Bearer <key>}; empty for none
 * @param readOnlyKey a key that allows only reads; empty for none
 * @param httpMaxConnections the most connections the HTTP API holds open at once; more are closed at once
 * @param httpRequestTimeout the most time a request may take to arrive in full (and its response to be sent)
 * @param httpIdleTimeout how long a kept-alive connection may wait for its next request
 * @param httpMaxPageItems the most items or events one scan, change log or change feed page answers with
 * @param httpLoginFailures how many wrong keys one client address may send before it is locked out
 * @param httpLoginLockout how long such a client address is locked out (and the window its failures count in)
 * @param acceptEmulatorKey whether the Cosmos DB routes also accept the Azure Cosmos DB emulator's published key as a
 *        read-write key
 * @param tlsKeystore a PKCS#12 file with the server's certificate and private key: the HTTP API then speaks TLS only
 *        (https), as the Cosmos DB SDKs require; empty for plain HTTP
 * @param tlsKeystorePassword the keystore's password
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
        long changeLogRetentionEvents,
        int httpMaxConnections,
        Duration httpRequestTimeout,
        Duration httpIdleTimeout,
        int httpMaxPageItems,
        int httpLoginFailures,
        Duration httpLoginLockout,
        boolean acceptEmulatorKey,
        Optional<String> tlsKeystore,
        String tlsKeystorePassword) {
    /** The fewest characters of a key: 32 base64 characters carry 192 bits. */
    public static final int MIN_KEY_LENGTH = 32;
    public static final int MAX_KEY_LENGTH = 512;
    /** Base64 or base64url, with optional padding: what a random key is encoded as, and safe in any header. */
    private static final Pattern KEY_CHARACTERS = Pattern.compile("[A-Za-z0-9+/_-]+={0,2}");
    /** The longest HTTP time limit: a day. */
    private static final Duration MAX_TIMEOUT = Duration.ofDays(1);

    public static final List<ConfigOption> OPTIONS = List.of(
            new ConfigOption("store.sync-writes", ConfigType.BOOLEAN, "true",
                    "fsync the write-ahead log before acknowledging a write. `false` keeps writes safe from a killed "
                            + "process but not from a power loss, and is faster for small writes."),
            new ConfigOption("store.ttl.reaper-interval-ms", ConfigType.INTEGER, "1000",
                    "How often the background TTL reaper physically removes expired items (they are invisible "
                            + "to reads as soon as they expire)."),
            new ConfigOption("store.ttl.reaper-batch-size", ConfigType.INTEGER, "1000",
                    "How many expired items the reaper removes in one atomic write."),
            new ConfigOption("store.http.bind", ConfigType.STRING, "127.0.0.1",
                    "Address the store's HTTP API listens on. Any address other than `127.0.0.1` and `::1` (other "
                            + "loopback addresses such as `127.0.0.2` included: [why](http-api.md#local-addresses)) "
                            + "requires `store.http.primary-key`."),
            new ConfigOption("store.http.port", ConfigType.INTEGER, "8081", "Port of the store's HTTP API."),
            new ConfigOption("store.http.threads", ConfigType.INTEGER, "16",
                    "Threads that run the store work of HTTP requests (reads and writes, which block on RocksDB). "
                            + "Connections are served by one non-blocking event loop per core, so a slow client "
                            + "holds none of these threads."),
            new ConfigOption("store.http.primary-key", ConfigType.STRING, "",
                    "Read-write key: clients send `Authorization: Bearer <key>`. Empty: no key (`127.0.0.1` and `::1` "
                            + "only). 32 to 512 characters of base64 or base64url (`A-Z a-z 0-9 + / - _`, `=` padding "
                            + "at the end), e.g. from `openssl rand -base64 32`; anything else is refused at start, "
                            + "naming the option and the rule (never the key)."),
            new ConfigOption("store.http.read-only-key", ConfigType.STRING, "",
                    "Read-only key: allows `GET` and `HEAD` requests only. Empty: none. Same rules as the primary "
                            + "key, and different from it."),
            new ConfigOption("store.http.max-connections", ConfigType.INTEGER, "1024",
                    "The most connections the HTTP API holds open at once; a connection beyond it is closed as "
                            + "soon as it is accepted."),
            new ConfigOption("store.http.request-timeout-ms", ConfigType.INTEGER, "30000",
                    "The most time a request may take to arrive in full, counted from the connection's opening or, on "
                            + "a kept-alive connection, from the request's first byte; a slower request is answered "
                            + "`408` and its connection closed. A response that takes longer to send closes its "
                            + "connection too."),
            new ConfigOption("store.http.idle-timeout-ms", ConfigType.INTEGER, "60000",
                    "How long a kept-alive connection may wait for its next request before it is closed."),
            new ConfigOption("store.http.max-page-items", ConfigType.INTEGER, "1000",
                    "The most items or events one page of a scan, the change log or the change feed answers with; a "
                            + "larger `maxItems` or `maxEvents` is lowered to it (the continuation reads on), and a "
                            + "page asked without one holds up to it."),
            new ConfigOption("store.http.login-failures", ConfigType.INTEGER, "10",
                    "Wrong keys one client address (an IPv6 `/64`) may send within `store.http.login-lockout-ms`; "
                            + "then each of its requests is answered `429` (with `Retry-After`) until the lockout has "
                            + "passed."),
            new ConfigOption("store.http.login-lockout-ms", ConfigType.INTEGER, "60000",
                    "How long a client address that sent too many wrong keys is locked out, and the window its "
                            + "wrong keys are counted in."),
            new ConfigOption("store.http.accept-emulator-key", ConfigType.BOOLEAN, "false",
                    "Whether the Cosmos DB routes (/ and /dbs/...) also accept requests signed with the Azure Cosmos "
                            + "DB emulator's published well-known key, as a read-write key, so that tools and tests "
                            + "written for the emulator run unchanged. The key is public: use it on 127.0.0.1 only."),
            new ConfigOption("store.http.tls-keystore", ConfigType.STRING, "",
                    "A PKCS#12 file holding the server's certificate and private key. When set, the HTTP API "
                            + "speaks only HTTPS (TLS), which the Cosmos DB SDKs require; clients must trust the "
                            + "certificate. Empty: plain HTTP."),
            new ConfigOption("store.http.tls-keystore-password", ConfigType.STRING, "",
                    "The password of store.http.tls-keystore."),
            new ConfigOption("store.change-log.retention-ms", ConfigType.INTEGER, "604800000",
                    "How long change events stay readable (all versions and deletes), in milliseconds; `-1` keeps "
                            + "them forever. The default, 7 days, is the shorter of Cosmos DB's continuous-backup "
                            + "windows. A reader whose position is older gets an error naming the oldest position "
                            + "left, never a silent gap. Trimmed by the same background thread as the TTL reaper, "
                            + "every `store.ttl.reaper-interval-ms`."),
            new ConfigOption("store.change-log.retention-events", ConfigType.INTEGER, "-1",
                    "At most this many events are kept per log partition (feed range); `-1`: no limit. Applies "
                            + "together with `store.change-log.retention-ms`: an event goes when either says so."));

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
        primaryKey.ifPresent(key -> checkKey("store.http.primary-key", key));
        readOnlyKey.ifPresent(key -> checkKey("store.http.read-only-key", key));
        if (readOnlyKey.isPresent() && primaryKey.isEmpty()) {
            throw ConfigSection.invalid("store.http.read-only-key", "(hidden)", "needs store.http.primary-key as well");
        }
        if (readOnlyKey.isPresent() && readOnlyKey.equals(primaryKey)) {
            throw ConfigSection.invalid("store.http.read-only-key", "(hidden)",
                    "must differ from store.http.primary-key, or it would allow writes");
        }
        if (httpMaxConnections < 1) {
            throw ConfigSection.invalid("store.http.max-connections", httpMaxConnections, "must be at least 1");
        }
        checkTimeout("store.http.request-timeout-ms", httpRequestTimeout);
        checkTimeout("store.http.idle-timeout-ms", httpIdleTimeout);
        if (httpMaxPageItems < 1) {
            throw ConfigSection.invalid("store.http.max-page-items", httpMaxPageItems, "must be at least 1");
        }
        if (httpLoginFailures < 1) {
            throw ConfigSection.invalid("store.http.login-failures", httpLoginFailures, "must be at least 1");
        }
        checkTimeout("store.http.login-lockout-ms", httpLoginLockout);
        tlsKeystore = tlsKeystore.filter(path -> !path.isEmpty());
        requireNonNull(tlsKeystorePassword, "tlsKeystorePassword is null");
        if (changeLogRetentionMs < 1 && changeLogRetentionMs != -1) {
            throw ConfigSection.invalid("store.change-log.retention-ms", changeLogRetentionMs, "must be positive, or -1 for forever");
        }
        if (changeLogRetentionEvents < 1 && changeLogRetentionEvents != -1) {
            throw ConfigSection.invalid("store.change-log.retention-events", changeLogRetentionEvents,
                    "must be positive, or -1 for no limit");
        }
    }

    private static void checkTimeout(String option, Duration timeout) {
        if (timeout.compareTo(Duration.ofMillis(1)) < 0 || timeout.compareTo(MAX_TIMEOUT) > 0) {
            throw ConfigSection.invalid(option, timeout.toMillis(), "must be from 1 to " + MAX_TIMEOUT.toMillis()
                    + " (a day)");
        }
    }

    /** A key is a secret: the error names the option and the rule, and only the key's length. */
    private static void checkKey(String option, String key) {
        String hidden = "(hidden, " + key.length() + " characters)";
        if (key.length() < MIN_KEY_LENGTH || key.length() > MAX_KEY_LENGTH) {
            throw ConfigSection.invalid(option, hidden, "must be " + MIN_KEY_LENGTH + " to " + MAX_KEY_LENGTH
                    + " characters long, e.g. from 'openssl rand -base64 32'");
        }
        if (!KEY_CHARACTERS.matcher(key).matches()) {
            throw ConfigSection.invalid(option, hidden, "must be base64 or base64url: only A-Z a-z 0-9 + / - _, "
                    + "with '=' padding at the end only");
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
                section.longValue("store.change-log.retention-events"),
                section.intValue("store.http.max-connections"),
                Duration.ofMillis(section.longValue("store.http.request-timeout-ms")),
                Duration.ofMillis(section.longValue("store.http.idle-timeout-ms")),
                section.intValue("store.http.max-page-items"),
                section.intValue("store.http.login-failures"),
                Duration.ofMillis(section.longValue("store.http.login-lockout-ms")),
                section.booleanValue("store.http.accept-emulator-key"),
                Optional.of(section.text("store.http.tls-keystore")),
                section.text("store.http.tls-keystore-password"));
    }

    public StoreConfig withSyncWrites(boolean sync) {
        return new StoreConfig(sync, reaperInterval, reaperBatchSize, httpBind, httpPort, httpThreads, primaryKey,
                readOnlyKey, changeLogRetentionMs, changeLogRetentionEvents, httpMaxConnections, httpRequestTimeout,
                httpIdleTimeout, httpMaxPageItems, httpLoginFailures, httpLoginLockout, acceptEmulatorKey, tlsKeystore,
                tlsKeystorePassword);
    }

    public StoreConfig withHttp(String bind, int port) {
        return new StoreConfig(syncWrites, reaperInterval, reaperBatchSize, bind, port, httpThreads, primaryKey,
                readOnlyKey, changeLogRetentionMs, changeLogRetentionEvents, httpMaxConnections, httpRequestTimeout,
                httpIdleTimeout, httpMaxPageItems, httpLoginFailures, httpLoginLockout, acceptEmulatorKey, tlsKeystore,
                tlsKeystorePassword);
    }

    public StoreConfig withKeys(String primary, String readOnly) {
        return new StoreConfig(syncWrites, reaperInterval, reaperBatchSize, httpBind, httpPort, httpThreads,
                Optional.ofNullable(primary), Optional.ofNullable(readOnly), changeLogRetentionMs,
                changeLogRetentionEvents, httpMaxConnections, httpRequestTimeout, httpIdleTimeout, httpMaxPageItems,
                httpLoginFailures, httpLoginLockout, acceptEmulatorKey, tlsKeystore, tlsKeystorePassword);
    }

    /**
     * @param retentionMs how long events stay readable, -1 for forever
     * @param retentionEvents how many events a log partition keeps at most, -1 for no limit
     */
    public StoreConfig withChangeLogRetention(long retentionMs, long retentionEvents) {
        return new StoreConfig(syncWrites, reaperInterval, reaperBatchSize, httpBind, httpPort, httpThreads,
                primaryKey, readOnlyKey, retentionMs, retentionEvents, httpMaxConnections, httpRequestTimeout,
                httpIdleTimeout, httpMaxPageItems, httpLoginFailures, httpLoginLockout, acceptEmulatorKey, tlsKeystore,
                tlsKeystorePassword);
    }

    /** This configuration with the Cosmos DB emulator's key accepted or not. */
    public StoreConfig withEmulatorKey(boolean accept) {
        return new StoreConfig(syncWrites, reaperInterval, reaperBatchSize, httpBind, httpPort, httpThreads,
                primaryKey, readOnlyKey, changeLogRetentionMs, changeLogRetentionEvents, httpMaxConnections,
                httpRequestTimeout, httpIdleTimeout, httpMaxPageItems, httpLoginFailures, httpLoginLockout, accept,
                tlsKeystore, tlsKeystorePassword);
    }

    /** This configuration serving TLS with the certificate and key of a PKCS#12 file. */
    public StoreConfig withTls(String keystore, String password) {
        return new StoreConfig(syncWrites, reaperInterval, reaperBatchSize, httpBind, httpPort, httpThreads,
                primaryKey, readOnlyKey, changeLogRetentionMs, changeLogRetentionEvents, httpMaxConnections,
                httpRequestTimeout, httpIdleTimeout, httpMaxPageItems, httpLoginFailures, httpLoginLockout,
                acceptEmulatorKey, Optional.of(keystore), password);
    }

    @Override
    public String toString() {
        // Keys never appear in logs.
        return "StoreConfig[syncWrites=" + syncWrites + ", reaperInterval=" + reaperInterval + ", reaperBatchSize="
                + reaperBatchSize + ", httpBind=" + httpBind + ", httpPort=" + httpPort + ", httpThreads=" + httpThreads
                + ", primaryKey=" + (primaryKey.isPresent() ? "(set)" : "(none)")
                + ", readOnlyKey=" + (readOnlyKey.isPresent() ? "(set)" : "(none)")
                + ", changeLogRetentionMs=" + changeLogRetentionMs + ", changeLogRetentionEvents="
                + changeLogRetentionEvents + ", httpMaxConnections=" + httpMaxConnections + ", httpRequestTimeout="
                + httpRequestTimeout + ", httpIdleTimeout=" + httpIdleTimeout + ", httpMaxPageItems="
                + httpMaxPageItems + ", httpLoginFailures=" + httpLoginFailures + ", httpLoginLockout="
                + httpLoginLockout + ", acceptEmulatorKey=" + acceptEmulatorKey + ", tlsKeystore="
                + tlsKeystore.orElse("(none)") + "]";
    }
}
