package io.docmirror.sql;

import io.docmirror.config.ConfigOption;
import io.docmirror.config.ConfigRule;
import io.docmirror.config.ConfigSection;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static java.util.Objects.requireNonNull;

/**
 * The SQL endpoint's limits ({@code sql.*}). Every option is declared once below, with its rule and a default that
 * suits one machine; docs/configuration.md is generated from the declarations.
 *
 * @param columnLimit {@code sql.column-limit}: a query whose result has more columns fails
 * @param memoryLimit {@code sql.memory-limit}: DuckDB's memory limit for all queries together ({@code 4GB})
 * @param threads {@code sql.threads}: DuckDB's worker threads; 0 for one per processor
 * @param queryTimeout {@code sql.query-timeout-ms}: a query running longer is cancelled
 * @param refreshInterval {@code sql.refresh-interval-ms}: how often the endpoint applies newer commits of the mirror
 * @param spillLimit {@code sql.spill-limit}: DuckDB's {@code max_temp_directory_size}, what queries may spill to disk
 */
public record SqlConfig(int columnLimit, String memoryLimit, int threads, Duration queryTimeout,
        Duration refreshInterval, String spillLimit) {
    /** The prefix of the options below. */
    public static final String PREFIX = "sql.";
    public static final ConfigOption COLUMN_LIMIT = new ConfigOption("sql.column-limit", "1000",
            "A query whose result has more columns than this fails with an error naming the limit (as the Synapse "
                    + "and Fabric SQL endpoints do).")
            .withRule(ConfigRule.atLeast(1));
    public static final ConfigOption MEMORY_LIMIT = new ConfigOption("sql.memory-limit", "4GB",
            "DuckDB's memory limit for all queries of the endpoint together; larger work spills to a temporary "
                    + "directory (up to `sql.spill-limit`). The Flight SQL server's Arrow buffers (results on their "
                    + "way to clients) are held to the same size, beside it.");
    public static final ConfigOption THREADS = new ConfigOption("sql.threads", "0",
            "DuckDB's worker threads; 0: one per processor.")
            .withRule(ConfigRule.atLeast(0));
    public static final ConfigOption QUERY_TIMEOUT_MS = new ConfigOption("sql.query-timeout-ms", "300000",
            "A query running longer than this is cancelled with an error; the endpoint keeps serving. A statement's "
                    + "own `setQueryTimeout` can only shorten it.")
            .withRule(ConfigRule.atLeast(1));
    public static final ConfigOption REFRESH_INTERVAL_MS = new ConfigOption("sql.refresh-interval-ms", "200",
            "How often the endpoint looks for newer commits of the mirror and applies them to its copy of the "
                    + "tables, in the background: queries never wait for it, and read the copy as the last apply left "
                    + "it. 0: every query looks first, and waits until the newest commits are applied.")
            .withRule(ConfigRule.atLeast(0));
    public static final ConfigOption SPILL_LIMIT = new ConfigOption("sql.spill-limit", "4GB",
            "How much all queries together may spill to disk (DuckDB's `max_temp_directory_size`, in the endpoint's "
                    + "temporary directory) when they outgrow `" + MEMORY_LIMIT.key() + "`; a query that needs more "
                    + "fails with an error, and the disk the store shares stays free.");
    public static final List<ConfigOption> OPTIONS = List.of(COLUMN_LIMIT, MEMORY_LIMIT, THREADS, QUERY_TIMEOUT_MS,
            REFRESH_INTERVAL_MS, SPILL_LIMIT);

    private static final Pattern MEMORY = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)",
            Pattern.CASE_INSENSITIVE);

    public SqlConfig {
        requireNonNull(memoryLimit, "memoryLimit is null");
        requireNonNull(queryTimeout, "queryTimeout is null");
        requireNonNull(refreshInterval, "refreshInterval is null");
        COLUMN_LIMIT.check(columnLimit);
        checkSize(MEMORY_LIMIT, memoryLimit);
        THREADS.check(threads);
        QUERY_TIMEOUT_MS.check(queryTimeout.toMillis());
        requireNonNull(spillLimit, "spillLimit is null");
        checkSize(SPILL_LIMIT, spillLimit);
        REFRESH_INTERVAL_MS.check(refreshInterval.toMillis());
    }

    /** A memory size as DuckDB takes it ({@code 512MB}, {@code 4GB}, {@code 1.5GiB}). */
    private static void checkSize(ConfigOption option, String size) {
        if (!MEMORY.matcher(size).matches()) {
            throw option.invalid(size, "must be a size such as 512MB or 4GB");
        }
    }

    public static SqlConfig defaults() {
        return fromProperties(Map.of());
    }

    /**
     * Reads the {@code sql.*} entries of a config file or of JDBC connection properties; missing keys take their
     * defaults.
     *
     * @throws IllegalArgumentException "Invalid value X for configuration Y: reason", or for an unknown key
     */
    public static SqlConfig fromProperties(Map<String, String> properties) {
        ConfigSection section = ConfigSection.of(PREFIX, OPTIONS, properties);
        return new SqlConfig(
                section.intValue(COLUMN_LIMIT),
                section.text(MEMORY_LIMIT).trim(),
                section.intValue(THREADS),
                Duration.ofMillis(section.longValue(QUERY_TIMEOUT_MS)),
                Duration.ofMillis(section.longValue(REFRESH_INTERVAL_MS)),
                section.text(SPILL_LIMIT).trim());
    }

    public SqlConfig withQueryTimeout(Duration timeout) {
        return new SqlConfig(columnLimit, memoryLimit, threads, timeout, refreshInterval, spillLimit);
    }

    public SqlConfig withRefreshInterval(Duration interval) {
        return new SqlConfig(columnLimit, memoryLimit, threads, queryTimeout, interval, spillLimit);
    }

    public SqlConfig withColumnLimit(int limit) {
        return new SqlConfig(limit, memoryLimit, threads, queryTimeout, refreshInterval, spillLimit);
    }

    public SqlConfig withMemoryLimit(String limit) {
        return new SqlConfig(columnLimit, limit, threads, queryTimeout, refreshInterval, spillLimit);
    }

    /**
     * {@link #memoryLimit} in bytes, read as DuckDB reads it: KB, MB, GB and TB are powers of 1,000, KiB, MiB, GiB
     * and TiB powers of 1,024.
     */
    public long memoryLimitBytes() {
        Matcher size = MEMORY.matcher(memoryLimit);
        if (!size.matches()) {
            throw new IllegalStateException("Not a size: " + memoryLimit);
        }
        String unit = size.group(2).toUpperCase(java.util.Locale.ROOT);
        long scale = switch (unit) {
            case "B" -> 1L;
            case "KB" -> 1_000L;
            case "MB" -> 1_000_000L;
            case "GB" -> 1_000_000_000L;
            case "TB" -> 1_000_000_000_000L;
            case "KIB" -> 1L << 10;
            case "MIB" -> 1L << 20;
            case "GIB" -> 1L << 30;
            default -> 1L << 40;
        };
        return new java.math.BigDecimal(size.group(1)).multiply(java.math.BigDecimal.valueOf(scale)).longValue();
    }

    public SqlConfig withSpillLimit(String limit) {
        return new SqlConfig(columnLimit, memoryLimit, threads, queryTimeout, refreshInterval, limit);
    }
}
