package io.docmirror.mirror;

import io.docmirror.mirror.parquet.ParquetOptions;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

import static java.util.Objects.requireNonNull;

/**
 * How the mirror batches and writes. Every option has a default that keeps the mirror about a second behind the
 * store when idle and fast under load; the reference is docs/configuration.md ({@code mirror.*}).
 *
 * @param batchMaxEvents {@code mirror.batch.max-events}: a batch commits when it holds this many changes
 * @param batchMaxInterval {@code mirror.batch.max-interval-ms}: ... or when its first change is this old
 * @param pollInterval {@code mirror.poll-interval-ms}: how long a caught-up daemon waits before reading again
 * @param parquet {@code mirror.parquet.*}: compression, row-group and page sizes
 * @param keepManifestVersions {@code mirror.manifest.keep-versions}: older manifest versions are removed
 */
public record MirrorConfig(int batchMaxEvents, Duration batchMaxInterval, Duration pollInterval,
        ParquetOptions parquet, int keepManifestVersions) {
    public static final List<Option> OPTIONS = List.of(
            new Option("mirror.batch.max-events", "50000",
                    "A batch (one commit: Parquet files and a manifest version) closes when it holds this many "
                            + "changes."),
            new Option("mirror.batch.max-interval-ms", "1000",
                    "... or when its first change is this many milliseconds old, so an idle mirror is at most "
                            + "about this far behind the store."),
            new Option("mirror.poll-interval-ms", "200",
                    "How long a caught-up daemon waits before reading the change feed again."),
            new Option("mirror.parquet.compression", "zstd",
                    "Compression of Parquet files: zstd, gzip, lz4_raw or uncompressed."),
            new Option("mirror.parquet.row-group-bytes", "33554432",
                    "A row group closes when its buffered size reaches this many bytes (32 MiB: about 100,000 "
                            + "narrow rows, small enough for min/max statistics to skip row groups)."),
            new Option("mirror.parquet.page-bytes", "1048576", "Target size of a Parquet page."),
            new Option("mirror.manifest.keep-versions", "100",
                    "Manifest versions older than the newest this many are removed."));

    /** One configuration option: its key, default value (as text) and what it does. */
    public record Option(String key, String defaultValue, String description) {
    }

    public MirrorConfig {
        requireNonNull(batchMaxInterval, "batchMaxInterval is null");
        requireNonNull(pollInterval, "pollInterval is null");
        requireNonNull(parquet, "parquet is null");
        if (batchMaxEvents < 1) {
            throw invalid("mirror.batch.max-events", batchMaxEvents, "must be at least 1");
        }
        if (batchMaxInterval.isNegative()) {
            throw invalid("mirror.batch.max-interval-ms", batchMaxInterval.toMillis(), "must not be negative");
        }
        if (pollInterval.isNegative() || pollInterval.isZero()) {
            throw invalid("mirror.poll-interval-ms", pollInterval.toMillis(), "must be positive");
        }
        if (parquet.rowGroupBytes() < 1 << 16) {
            throw invalid("mirror.parquet.row-group-bytes", parquet.rowGroupBytes(), "must be at least 65536");
        }
        if (parquet.pageBytes() < 1 << 12) {
            throw invalid("mirror.parquet.page-bytes", parquet.pageBytes(), "must be at least 4096");
        }
        if (keepManifestVersions < 1) {
            throw invalid("mirror.manifest.keep-versions", keepManifestVersions, "must be at least 1");
        }
    }

    public static MirrorConfig defaults() {
        return fromProperties(Map.of());
    }

    /**
     * Reads the {@code mirror.*} entries of a config file; missing keys take their defaults.
     *
     * @throws IllegalArgumentException "Invalid value X for configuration Y: reason", or for an unknown key
     */
    public static MirrorConfig fromProperties(Map<String, String> properties) {
        for (String key : properties.keySet()) {
            if (key.startsWith("mirror.") && OPTIONS.stream().noneMatch(option -> option.key().equals(key))) {
                throw new IllegalArgumentException("Unknown configuration " + key + "; see docs/configuration.md");
            }
        }
        Function<String, String> value = key -> properties.getOrDefault(key, OPTIONS.stream()
                .filter(option -> option.key().equals(key)).findFirst().orElseThrow().defaultValue()).trim();
        return new MirrorConfig(
                (int) parseLong("mirror.batch.max-events", value),
                Duration.ofMillis(parseLong("mirror.batch.max-interval-ms", value)),
                Duration.ofMillis(parseLong("mirror.poll-interval-ms", value)),
                new ParquetOptions(compression(value.apply("mirror.parquet.compression")),
                        parseLong("mirror.parquet.row-group-bytes", value),
                        (int) parseLong("mirror.parquet.page-bytes", value)),
                (int) parseLong("mirror.manifest.keep-versions", value));
    }

    public MirrorConfig withBatch(int maxEvents, Duration maxInterval) {
        return new MirrorConfig(maxEvents, maxInterval, pollInterval, parquet, keepManifestVersions);
    }

    private static CompressionCodecName compression(String text) {
        return switch (text.toLowerCase(Locale.ROOT)) {
            case "zstd" -> CompressionCodecName.ZSTD;
            case "gzip" -> CompressionCodecName.GZIP;
            case "lz4_raw" -> CompressionCodecName.LZ4_RAW;
            case "uncompressed" -> CompressionCodecName.UNCOMPRESSED;
            default -> throw invalid("mirror.parquet.compression", text,
                    "must be zstd, gzip, lz4_raw or uncompressed");
        };
    }

    private static long parseLong(String key, Function<String, String> value) {
        String text = value.apply(key);
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw invalid(key, text, "must be an integer");
        }
    }

    private static IllegalArgumentException invalid(String key, Object value, String reason) {
        return new IllegalArgumentException("Invalid value " + value + " for configuration " + key + ": " + reason);
    }
}
