package io.docmirror.store;

import io.docmirror.config.ConfigOption;
import io.docmirror.config.ConfigRule;
import io.docmirror.config.ConfigSection;
import io.docmirror.config.ConfigType;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

import static java.util.Objects.requireNonNull;

/**
 * The operational store's settings. Every option is declared once, with its key, type, default, rule and
 * description; the constructor checks each value against its option's rule, and {@code docs/configuration.md} is
 * generated from the declarations.
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
 * @param httpLoginFailures how many wrong keys one client address may send before their answers are held back
 * @param httpLoginFailureDelay the longest the answer to a wrong key is held back
 * @param acceptEmulatorKey whether the Cosmos DB routes also accept the Azure Cosmos DB emulator's published key as a
 *        read-write key
 * @param tlsKeystore a PKCS#12 file with the server's certificate and private key: the HTTP API then speaks TLS only
 *        (https), as the Cosmos DB SDKs require; empty for plain HTTP
 * @param tlsKeystorePassword the keystore's password
 * @param cosmosAllVersionsAndDeletes whether the Cosmos DB routes offer the change feed's all versions and deletes
 *        mode; false imitates an account without it
 * @param queryMaxRowsPerPage the most rows one page of a NoSQL query may make
 * @param queryMaxPageTime the most time one page of a NoSQL query may take
 * @param httpMaxSnapshots the most snapshots the HTTP API holds for its clients at once
 * @param httpSnapshotMaxLease the longest a held snapshot lives after it was created or last read
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
        Duration httpLoginFailureDelay,
        boolean acceptEmulatorKey,
        Optional<String> tlsKeystore,
        String tlsKeystorePassword,
        boolean cosmosAllVersionsAndDeletes,
        long queryMaxRowsPerPage,
        Duration queryMaxPageTime,
        int httpMaxSnapshots,
        Duration httpSnapshotMaxLease) {
    /** The fewest characters of a key: 32 base64 characters carry 192 bits. */
    public static final int MIN_KEY_LENGTH = 32;
    public static final int MAX_KEY_LENGTH = 512;
    /** Base64 or base64url, with optional padding: what a random key is encoded as, and safe in any header. */
    private static final Pattern KEY_CHARACTERS = Pattern.compile("[A-Za-z0-9+/_-]+={0,2}");
    /** The longest HTTP time limit: a day. */
    private static final long MAX_TIMEOUT_MS = Duration.ofDays(1).toMillis();

    public static final ConfigOption SYNC_WRITES = new ConfigOption("store.sync-writes", ConfigType.BOOLEAN, "true",
            "fsync the write-ahead log before acknowledging a write. `false` keeps writes safe from a killed "
                    + "process but not from a power loss, and is faster for small writes.");
    public static final ConfigOption TTL_REAPER_INTERVAL_MS = new ConfigOption(
            "store.ttl.reaper-interval-ms", ConfigType.INTEGER, "1000",
            "How often the background TTL reaper physically removes expired items (they are invisible "
                    + "to reads as soon as they expire).")
            .withRule(ConfigRule.atLeast(1));
    public static final ConfigOption TTL_REAPER_BATCH_SIZE = new ConfigOption(
            "store.ttl.reaper-batch-size", ConfigType.INTEGER, "1000",
            "How many expired items the reaper removes in one atomic write.")
            .withRule(ConfigRule.atLeast(1));
    public static final ConfigOption HTTP_BIND = new ConfigOption("store.http.bind", ConfigType.STRING, "127.0.0.1",
            "Address the store's HTTP API listens on. Any address other than `127.0.0.1` and `::1` (other "
                    + "loopback addresses such as `127.0.0.2` included: [why](http-api.md#local-addresses)) "
                    + "requires `store.http.primary-key`.");
    public static final ConfigOption HTTP_PORT = new ConfigOption(
            "store.http.port", ConfigType.INTEGER, "8081", "Port of the store's HTTP API.")
            .withRule(ConfigRule.between(0, 65535));
    public static final ConfigOption HTTP_THREADS = new ConfigOption("store.http.threads", ConfigType.INTEGER, "16",
            "Threads that run the store work of HTTP requests (reads and writes, which block on RocksDB). "
                    + "Connections are served by one non-blocking event loop per core, so a slow client "
                    + "holds none of these threads.")
            .withRule(ConfigRule.atLeast(1));
    public static final ConfigOption HTTP_PRIMARY_KEY = new ConfigOption(
            "store.http.primary-key", ConfigType.STRING, "",
            "Read-write key: clients send `Authorization: Bearer <key>`. Empty: no key (`127.0.0.1` and `::1` "
                    + "only). 32 to 512 characters of base64 or base64url (`A-Z a-z 0-9 + / - _`, `=` padding "
                    + "at the end), e.g. from `openssl rand -base64 32`; anything else is refused at start, "
                    + "naming the option and the rule (never the key).");
    public static final ConfigOption HTTP_READ_ONLY_KEY = new ConfigOption(
            "store.http.read-only-key", ConfigType.STRING, "",
            "Read-only key: allows `GET` and `HEAD` requests only. Empty: none. Same rules as the primary "
                    + "key, and different from it.");
    public static final ConfigOption HTTP_MAX_CONNECTIONS = new ConfigOption(
            "store.http.max-connections", ConfigType.INTEGER, "1024",
            "The most connections the HTTP API holds open at once, and a quarter of it from one client "
                    + "address. When a new connection finds either full, the oldest connection (of the pool, or of "
                    + "that address) that has not sent a whole request yet is closed to make room; when every one "
                    + "has, the new connection is closed as soon as it is accepted.")
            .withRule(ConfigRule.atLeast(1));
    public static final ConfigOption HTTP_REQUEST_TIMEOUT_MS = new ConfigOption(
            "store.http.request-timeout-ms", ConfigType.INTEGER, "30000",
            "The most time a request may take to arrive in full, counted from the connection's opening or, on "
                    + "a kept-alive connection, from the request's first byte; a slower request is answered "
                    + "`408` and its connection closed. A response that takes longer to send closes its "
                    + "connection too.")
            .withRule(ConfigRule.between(1, MAX_TIMEOUT_MS));
    public static final ConfigOption HTTP_IDLE_TIMEOUT_MS = new ConfigOption(
            "store.http.idle-timeout-ms", ConfigType.INTEGER, "60000",
            "How long a kept-alive connection may wait for its next request before it is closed.")
            .withRule(ConfigRule.between(1, MAX_TIMEOUT_MS));
    public static final ConfigOption HTTP_MAX_PAGE_ITEMS = new ConfigOption(
            "store.http.max-page-items", ConfigType.INTEGER, "1000",
            "The most items or events one page of a scan, the change log or the change feed answers with; a "
                    + "larger `maxItems` or `maxEvents` is lowered to it (the continuation reads on), and a "
                    + "page asked without one holds up to it.")
            .withRule(ConfigRule.atLeast(1));
    public static final ConfigOption HTTP_LOGIN_FAILURES = new ConfigOption(
            "store.http.login-failures", ConfigType.INTEGER, "10",
            "Wrong keys one client address (an IPv6 `/64`) may send before the answers to its further wrong keys "
                    + "are held back: 50 ms, then twice as long each time, up to "
                    + "`store.http.login-failure-delay-ms`, until the address has sent none for a minute. A "
                    + "request with a valid key is never held back or refused.")
            .withRule(ConfigRule.atLeast(1));
    public static final ConfigOption HTTP_LOGIN_FAILURE_DELAY_MS = new ConfigOption(
            "store.http.login-failure-delay-ms", ConfigType.INTEGER, "2000",
            "The longest the answer to a wrong key is held back once its address has sent "
                    + "`store.http.login-failures` of them (no thread waits meanwhile).")
            .withRule(ConfigRule.between(1, 60_000));
    public static final ConfigOption HTTP_ACCEPT_EMULATOR_KEY = new ConfigOption(
            "store.http.accept-emulator-key", ConfigType.BOOLEAN, "false",
            "Whether the Cosmos DB routes (/ and /dbs/...) also accept requests signed with the Azure Cosmos "
                    + "DB emulator's published well-known key, as a read-write key, so that tools and tests "
                    + "written for the emulator run unchanged. The key is public, so a bind address other than "
                    + "127.0.0.1 or ::1 is refused with it.");
    public static final ConfigOption HTTP_TLS_KEYSTORE = new ConfigOption(
            "store.http.tls-keystore", ConfigType.STRING, "",
            "A PKCS#12 file holding the server's certificate and private key. When set, the HTTP API "
                    + "speaks only HTTPS (TLS), which the Cosmos DB SDKs require; clients must trust the "
                    + "certificate. Empty: plain HTTP.");
    public static final ConfigOption HTTP_TLS_KEYSTORE_PASSWORD = new ConfigOption(
            "store.http.tls-keystore-password", ConfigType.STRING, "",
            "The password of store.http.tls-keystore.");
    public static final ConfigOption HTTP_COSMOS_ALL_VERSIONS_AND_DELETES = new ConfigOption(
            "store.http.cosmos-all-versions-and-deletes", ConfigType.BOOLEAN, "true",
            "Whether the Cosmos DB routes offer the change feed in all versions and deletes mode (`A-IM: "
                    + "Full-Fidelity Feed`). `false` imitates a Cosmos DB account without that mode (on Azure it "
                    + "needs continuous backup and the account's opt-in): a read in it is answered `400`, as "
                    + "such an account answers, and clients fall back to the latest version, as `mirror run "
                    + "--source cosmos` does; for trying that fallback against docmirror's store.");
    public static final ConfigOption CHANGE_LOG_RETENTION_MS = new ConfigOption(
            "store.change-log.retention-ms", ConfigType.INTEGER, "604800000",
            "How long change events stay readable (all versions and deletes), in milliseconds; `-1` keeps "
                    + "them forever. The default, 7 days, is the shorter of Cosmos DB's continuous-backup "
                    + "windows. A reader whose position is older gets an error naming the oldest position "
                    + "left, never a silent gap. Trimmed by the same background thread as the TTL reaper, "
                    + "every `store.ttl.reaper-interval-ms`.")
            .withRule(ConfigRule.atLeastOr(1, -1, "forever"));
    public static final ConfigOption CHANGE_LOG_RETENTION_EVENTS = new ConfigOption(
            "store.change-log.retention-events", ConfigType.INTEGER, "-1",
            "At most this many events are kept per log partition (feed range); `-1`: no limit. Applies "
                    + "together with `store.change-log.retention-ms`: an event goes when either says so.")
            .withRule(ConfigRule.atLeastOr(1, -1, "no limit"));
    public static final ConfigOption QUERY_MAX_ROWS_PER_PAGE = new ConfigOption(
            "store.query.max-rows-per-page", ConfigType.INTEGER, "10000000",
            "The most rows one page of a NoSQL query (the Cosmos DB routes' queries and read feeds) may make: "
                    + "documents times the rows their JOINs make of them, matching the filter or not. A query that "
                    + "streams ends its page there with a continuation; one with ORDER BY, GROUP BY, DISTINCT or an "
                    + "aggregate, which must see every row first, is refused (`400`).")
            .withRule(ConfigRule.atLeast(1));
    public static final ConfigOption QUERY_MAX_PAGE_MS = new ConfigOption(
            "store.query.max-page-ms", ConfigType.INTEGER, "5000",
            "The most time one page of a NoSQL query may take, as Cosmos DB ends a page after about five "
                    + "seconds: a query that streams ends its page with a continuation, one that must see every row "
                    + "first is refused (`400`).")
            .withRule(ConfigRule.between(1, MAX_TIMEOUT_MS));
    public static final ConfigOption HTTP_MAX_SNAPSHOTS = new ConfigOption(
            "store.http.max-snapshots", ConfigType.INTEGER, "16",
            "The most snapshots the HTTP API holds for its clients at once ([snapshots](http-api.md#snapshots-backfill),"
                    + " which a distributed backfill reads in parallel). Each keeps RocksDB from dropping the item "
                    + "versions it may read, so a client that asks for one more is answered `429` until one is "
                    + "released or its lease expires.")
            .withRule(ConfigRule.atLeast(1));
    public static final ConfigOption HTTP_SNAPSHOT_MAX_LEASE_MS = new ConfigOption(
            "store.http.snapshot-max-lease-ms", ConfigType.INTEGER, "600000",
            "The longest lease of a snapshot the HTTP API holds, in milliseconds: a snapshot not read (nor renewed) "
                    + "for its lease is released by the server, so a crashed client pins nothing for longer. A "
                    + "client may ask for a shorter lease; each read renews it.")
            .withRule(ConfigRule.between(1, MAX_TIMEOUT_MS));
    public static final List<ConfigOption> OPTIONS = List.of(SYNC_WRITES, TTL_REAPER_INTERVAL_MS, TTL_REAPER_BATCH_SIZE,
            HTTP_BIND, HTTP_PORT, HTTP_THREADS, HTTP_PRIMARY_KEY, HTTP_READ_ONLY_KEY, HTTP_MAX_CONNECTIONS,
            HTTP_REQUEST_TIMEOUT_MS, HTTP_IDLE_TIMEOUT_MS, HTTP_MAX_PAGE_ITEMS, HTTP_MAX_SNAPSHOTS,
            HTTP_SNAPSHOT_MAX_LEASE_MS, HTTP_LOGIN_FAILURES,
            HTTP_LOGIN_FAILURE_DELAY_MS, HTTP_ACCEPT_EMULATOR_KEY, HTTP_TLS_KEYSTORE, HTTP_TLS_KEYSTORE_PASSWORD,
            HTTP_COSMOS_ALL_VERSIONS_AND_DELETES, QUERY_MAX_ROWS_PER_PAGE, QUERY_MAX_PAGE_MS, CHANGE_LOG_RETENTION_MS,
            CHANGE_LOG_RETENTION_EVENTS);

    public StoreConfig {
        TTL_REAPER_INTERVAL_MS.check(reaperInterval.toMillis());
        TTL_REAPER_BATCH_SIZE.check(reaperBatchSize);
        HTTP_PORT.check(httpPort);
        HTTP_THREADS.check(httpThreads);
        primaryKey = primaryKey.filter(key -> !key.isEmpty());
        readOnlyKey = readOnlyKey.filter(key -> !key.isEmpty());
        primaryKey.ifPresent(key -> checkKey(HTTP_PRIMARY_KEY, key));
        readOnlyKey.ifPresent(key -> checkKey(HTTP_READ_ONLY_KEY, key));
        if (readOnlyKey.isPresent() && primaryKey.isEmpty()) {
            throw HTTP_READ_ONLY_KEY.invalid("(hidden)", "needs " + HTTP_PRIMARY_KEY.key() + " as well");
        }
        if (readOnlyKey.isPresent() && readOnlyKey.equals(primaryKey)) {
            throw HTTP_READ_ONLY_KEY.invalid("(hidden)", "must differ from " + HTTP_PRIMARY_KEY.key()
                    + ", or it would allow writes");
        }
        HTTP_MAX_CONNECTIONS.check(httpMaxConnections);
        HTTP_REQUEST_TIMEOUT_MS.check(httpRequestTimeout.toMillis());
        HTTP_IDLE_TIMEOUT_MS.check(httpIdleTimeout.toMillis());
        HTTP_MAX_PAGE_ITEMS.check(httpMaxPageItems);
        HTTP_LOGIN_FAILURES.check(httpLoginFailures);
        HTTP_LOGIN_FAILURE_DELAY_MS.check(httpLoginFailureDelay.toMillis());
        tlsKeystore = tlsKeystore.filter(path -> !path.isEmpty());
        requireNonNull(tlsKeystorePassword, "tlsKeystorePassword is null");
        CHANGE_LOG_RETENTION_MS.check(changeLogRetentionMs);
        CHANGE_LOG_RETENTION_EVENTS.check(changeLogRetentionEvents);
        QUERY_MAX_ROWS_PER_PAGE.check(queryMaxRowsPerPage);
        QUERY_MAX_PAGE_MS.check(queryMaxPageTime.toMillis());
        HTTP_MAX_SNAPSHOTS.check(httpMaxSnapshots);
        HTTP_SNAPSHOT_MAX_LEASE_MS.check(httpSnapshotMaxLease.toMillis());
    }

    /** A key is a secret: the error names the option and the rule, and only the key's length. */
    private static void checkKey(ConfigOption option, String key) {
        String hidden = "(hidden, " + key.length() + " characters)";
        if (key.length() < MIN_KEY_LENGTH || key.length() > MAX_KEY_LENGTH) {
            throw option.invalid(hidden, "must be " + MIN_KEY_LENGTH + " to " + MAX_KEY_LENGTH
                    + " characters long, e.g. from 'openssl rand -base64 32'");
        }
        if (!KEY_CHARACTERS.matcher(key).matches()) {
            throw option.invalid(hidden, "must be base64 or base64url: only A-Z a-z 0-9 + / - _, "
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
                section.booleanValue(SYNC_WRITES),
                Duration.ofMillis(section.intValue(TTL_REAPER_INTERVAL_MS)),
                section.intValue(TTL_REAPER_BATCH_SIZE),
                section.text(HTTP_BIND),
                section.intValue(HTTP_PORT),
                section.intValue(HTTP_THREADS),
                Optional.of(section.text(HTTP_PRIMARY_KEY)),
                Optional.of(section.text(HTTP_READ_ONLY_KEY)),
                section.longValue(CHANGE_LOG_RETENTION_MS),
                section.longValue(CHANGE_LOG_RETENTION_EVENTS),
                section.intValue(HTTP_MAX_CONNECTIONS),
                Duration.ofMillis(section.longValue(HTTP_REQUEST_TIMEOUT_MS)),
                Duration.ofMillis(section.longValue(HTTP_IDLE_TIMEOUT_MS)),
                section.intValue(HTTP_MAX_PAGE_ITEMS),
                section.intValue(HTTP_LOGIN_FAILURES),
                Duration.ofMillis(section.longValue(HTTP_LOGIN_FAILURE_DELAY_MS)),
                section.booleanValue(HTTP_ACCEPT_EMULATOR_KEY),
                Optional.of(section.text(HTTP_TLS_KEYSTORE)),
                section.text(HTTP_TLS_KEYSTORE_PASSWORD),
                section.booleanValue(HTTP_COSMOS_ALL_VERSIONS_AND_DELETES),
                section.longValue(QUERY_MAX_ROWS_PER_PAGE),
                Duration.ofMillis(section.longValue(QUERY_MAX_PAGE_MS)),
                section.intValue(HTTP_MAX_SNAPSHOTS),
                Duration.ofMillis(section.longValue(HTTP_SNAPSHOT_MAX_LEASE_MS)));
    }

    public StoreConfig withSyncWrites(boolean sync) {
        return new StoreConfig(sync, reaperInterval, reaperBatchSize, httpBind, httpPort, httpThreads, primaryKey,
                readOnlyKey, changeLogRetentionMs, changeLogRetentionEvents, httpMaxConnections, httpRequestTimeout,
                httpIdleTimeout, httpMaxPageItems, httpLoginFailures, httpLoginFailureDelay, acceptEmulatorKey,
                tlsKeystore, tlsKeystorePassword, cosmosAllVersionsAndDeletes, queryMaxRowsPerPage, queryMaxPageTime, httpMaxSnapshots, httpSnapshotMaxLease);
    }

    public StoreConfig withHttp(String bind, int port) {
        return new StoreConfig(syncWrites, reaperInterval, reaperBatchSize, bind, port, httpThreads, primaryKey,
                readOnlyKey, changeLogRetentionMs, changeLogRetentionEvents, httpMaxConnections, httpRequestTimeout,
                httpIdleTimeout, httpMaxPageItems, httpLoginFailures, httpLoginFailureDelay, acceptEmulatorKey,
                tlsKeystore, tlsKeystorePassword, cosmosAllVersionsAndDeletes, queryMaxRowsPerPage, queryMaxPageTime, httpMaxSnapshots, httpSnapshotMaxLease);
    }

    public StoreConfig withKeys(String primary, String readOnly) {
        return new StoreConfig(syncWrites, reaperInterval, reaperBatchSize, httpBind, httpPort, httpThreads,
                Optional.ofNullable(primary), Optional.ofNullable(readOnly), changeLogRetentionMs,
                changeLogRetentionEvents, httpMaxConnections, httpRequestTimeout, httpIdleTimeout, httpMaxPageItems,
                httpLoginFailures, httpLoginFailureDelay, acceptEmulatorKey, tlsKeystore, tlsKeystorePassword,
                cosmosAllVersionsAndDeletes, queryMaxRowsPerPage,
                queryMaxPageTime, httpMaxSnapshots, httpSnapshotMaxLease);
    }

    /**
     * @param retentionMs how long events stay readable, -1 for forever
     * @param retentionEvents how many events a log partition keeps at most, -1 for no limit
     */
    public StoreConfig withChangeLogRetention(long retentionMs, long retentionEvents) {
        return new StoreConfig(syncWrites, reaperInterval, reaperBatchSize, httpBind, httpPort, httpThreads,
                primaryKey, readOnlyKey, retentionMs, retentionEvents, httpMaxConnections, httpRequestTimeout,
                httpIdleTimeout, httpMaxPageItems, httpLoginFailures, httpLoginFailureDelay, acceptEmulatorKey,
                tlsKeystore, tlsKeystorePassword, cosmosAllVersionsAndDeletes, queryMaxRowsPerPage, queryMaxPageTime, httpMaxSnapshots, httpSnapshotMaxLease);
    }

    /** This configuration with other budgets for one page of a NoSQL query. */
    public StoreConfig withQueryPageBudget(long maxRows, Duration maxTime) {
        return new StoreConfig(syncWrites, reaperInterval, reaperBatchSize, httpBind, httpPort, httpThreads,
                primaryKey, readOnlyKey, changeLogRetentionMs, changeLogRetentionEvents, httpMaxConnections,
                httpRequestTimeout, httpIdleTimeout, httpMaxPageItems, httpLoginFailures, httpLoginFailureDelay,
                acceptEmulatorKey, tlsKeystore, tlsKeystorePassword, cosmosAllVersionsAndDeletes, maxRows, maxTime, httpMaxSnapshots, httpSnapshotMaxLease);
    }

    /** This configuration with the Cosmos DB emulator's key accepted or not. */
    public StoreConfig withEmulatorKey(boolean accept) {
        return new StoreConfig(syncWrites, reaperInterval, reaperBatchSize, httpBind, httpPort, httpThreads,
                primaryKey, readOnlyKey, changeLogRetentionMs, changeLogRetentionEvents, httpMaxConnections,
                httpRequestTimeout, httpIdleTimeout, httpMaxPageItems, httpLoginFailures, httpLoginFailureDelay, accept,
                tlsKeystore, tlsKeystorePassword, cosmosAllVersionsAndDeletes, queryMaxRowsPerPage,
                queryMaxPageTime, httpMaxSnapshots, httpSnapshotMaxLease);
    }

    /** This configuration serving TLS with the certificate and key of a PKCS#12 file. */
    public StoreConfig withTls(String keystore, String password) {
        return new StoreConfig(syncWrites, reaperInterval, reaperBatchSize, httpBind, httpPort, httpThreads,
                primaryKey, readOnlyKey, changeLogRetentionMs, changeLogRetentionEvents, httpMaxConnections,
                httpRequestTimeout, httpIdleTimeout, httpMaxPageItems, httpLoginFailures, httpLoginFailureDelay,
                acceptEmulatorKey, Optional.of(keystore), password, cosmosAllVersionsAndDeletes, queryMaxRowsPerPage,
                queryMaxPageTime, httpMaxSnapshots, httpSnapshotMaxLease);
    }

    /**
     * This configuration with the Cosmos DB routes offering the change feed's all versions and deletes mode, or (false)
     * answering it as an account without the mode does.
     */
    public StoreConfig withCosmosAllVersionsAndDeletes(boolean offered) {
        return new StoreConfig(syncWrites, reaperInterval, reaperBatchSize, httpBind, httpPort, httpThreads,
                primaryKey, readOnlyKey, changeLogRetentionMs, changeLogRetentionEvents, httpMaxConnections,
                httpRequestTimeout, httpIdleTimeout, httpMaxPageItems, httpLoginFailures, httpLoginFailureDelay,
                acceptEmulatorKey, tlsKeystore, tlsKeystorePassword, offered, queryMaxRowsPerPage,
                queryMaxPageTime, httpMaxSnapshots, httpSnapshotMaxLease);
    }

    /** This configuration holding at most {@code max} snapshots for HTTP clients, each for at most {@code maxLease}. */
    public StoreConfig withSnapshots(int max, Duration maxLease) {
        return new StoreConfig(syncWrites, reaperInterval, reaperBatchSize, httpBind, httpPort, httpThreads,
                primaryKey, readOnlyKey, changeLogRetentionMs, changeLogRetentionEvents, httpMaxConnections,
                httpRequestTimeout, httpIdleTimeout, httpMaxPageItems, httpLoginFailures, httpLoginFailureDelay,
                acceptEmulatorKey, tlsKeystore, tlsKeystorePassword, cosmosAllVersionsAndDeletes, queryMaxRowsPerPage,
                queryMaxPageTime, max, maxLease);
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
                + httpMaxPageItems + ", httpLoginFailures=" + httpLoginFailures + ", httpLoginFailureDelay="
                + httpLoginFailureDelay + ", acceptEmulatorKey=" + acceptEmulatorKey + ", tlsKeystore="
                + tlsKeystore.orElse("(none)") + ", cosmosAllVersionsAndDeletes=" + cosmosAllVersionsAndDeletes
                + ", queryMaxRowsPerPage=" + queryMaxRowsPerPage + ", queryMaxPageTime=" + queryMaxPageTime
                + ", httpMaxSnapshots=" + httpMaxSnapshots + ", httpSnapshotMaxLease=" + httpSnapshotMaxLease + "]";
    }
}
