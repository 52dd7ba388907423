package io.docmirror.sql;

import io.docmirror.config.ConfigOption;
import io.docmirror.config.ConfigSection;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import static java.util.Objects.requireNonNull;

/**
 * The SQL endpoint's limits. Every option has a default that suits one machine; the reference is
 * docs/configuration.md ({@code sql.*}).
 *
 * @param columnLimit {@code sql.column-limit}: a query whose result has more columns fails
 * @param memoryLimit {@code sql.memory-limit}: DuckDB's memory limit for all queries together ({@code 4GB})
 * @param threads {@code sql.threads}: DuckDB's worker threads; 0 for one per processor
 * @param queryTimeout {@code sql.query-timeout-ms}: a query running longer is cancelled
 * @param refreshInterval {@code sql.refresh-interval-ms}: how often a query looks for newer commits of the mirror
 * @param spillLimit {@code sql.spill-limit}: DuckDB's {@code max_temp_directory_size}, what queries may spill to disk
 */
public record SqlConfig(int columnLimit, String memoryLimit, int threads, Duration queryTimeout,
        Duration refreshInterval, String spillLimit) {
    public static final List<ConfigOption> OPTIONS = List.of(
            new ConfigOption("sql.column-limit", "1000",
                    "A query whose result has more columns than this fails with an error naming the limit (as the "
                            + "Synapse and Fabric SQL endpoints do)."),
            new ConfigOption("sql.memory-limit", "4GB",
                    "DuckDB's memory limit for all queries of the endpoint together; larger work spills to a "
                            + "temporary directory (up to `sql.spill-limit`)."),
            new ConfigOption("sql.threads", "0", "DuckDB's worker threads; 0: one per processor."),
            new ConfigOption("sql.query-timeout-ms", "300000",
                    "A query running longer than this is cancelled with an error; the endpoint keeps serving. A "
                            + "statement's own `setQueryTimeout` can only shorten it."),
            new ConfigOption("sql.refresh-interval-ms", "200",
                    "A query first looks for newer commits of the mirror when the last look is older than this, so "
                            + "results are at most this much older than the mirror's last commit."),
            new ConfigOption("sql.spill-limit", "4GB",
                    "How much all queries together may spill to disk (DuckDB's `max_temp_directory_size`, in the "
                            + "endpoint's temporary directory) when they outgrow `sql.memory-limit`; a query that "
                            + "needs more fails with an error, and the disk the store shares stays free."));

    private static final Pattern MEMORY = Pattern.compile("\\d+(\\.\\d+)?\\s*(B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)",
            Pattern.CASE_INSENSITIVE);

    public SqlConfig {
        requireNonNull(memoryLimit, "memoryLimit is null");
        requireNonNull(queryTimeout, "queryTimeout is null");
        requireNonNull(refreshInterval, "refreshInterval is null");
        if (columnLimit < 1) {
            throw ConfigSection.invalid("sql.column-limit", columnLimit, "must be at least 1");
        }
        if (!MEMORY.matcher(memoryLimit).matches()) {
            throw ConfigSection.invalid("sql.memory-limit", memoryLimit, "must be a size such as 512MB or 4GB");
        }
        if (threads < 0) {
            throw ConfigSection.invalid("sql.threads", threads, "must not be negative");
        }
        if (queryTimeout.isNegative() || queryTimeout.isZero()) {
            throw ConfigSection.invalid("sql.query-timeout-ms", queryTimeout.toMillis(), "must be positive");
        }
        requireNonNull(spillLimit, "spillLimit is null");
        if (!MEMORY.matcher(spillLimit).matches()) {
            throw ConfigSection.invalid("sql.spill-limit", spillLimit, "must be a size such as 512MB or 4GB");
        }
        if (refreshInterval.isNegative()) {
            throw ConfigSection.invalid("sql.refresh-interval-ms", refreshInterval.toMillis(), "must not be negative");
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
        ConfigSection section = ConfigSection.of("sql.", OPTIONS, properties);
        return new SqlConfig(
                section.intValue("sql.column-limit"),
                section.text("sql.memory-limit").trim(),
                section.intValue("sql.threads"),
                Duration.ofMillis(section.longValue("sql.query-timeout-ms")),
                Duration.ofMillis(section.longValue("sql.refresh-interval-ms")),
                section.text("sql.spill-limit").trim());
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

    public SqlConfig withSpillLimit(String limit) {
        return new SqlConfig(columnLimit, memoryLimit, threads, queryTimeout, refreshInterval, limit);
    }
}
