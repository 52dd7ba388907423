package io.docmirror.mirror;

import io.docmirror.config.ConfigOption;
import io.docmirror.config.ConfigSection;
import io.docmirror.mirror.ParquetOptions;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import static java.util.Objects.requireNonNull;

/**
 * How the mirror batches and writes. Every option has a default that keeps the mirror about a second behind the
 * store when idle and fast under load; the reference is docs/configuration.md ({@code mirror.*}).
 *
 * @param batchMaxEvents {@code mirror.batch.max-events}: a batch commits when it holds this many changes
 * @param batchMaxInterval {@code mirror.batch.max-interval-ms}: ... or when its first change is this old
 * @param pollInterval {@code mirror.poll-interval-ms}: how long a caught-up daemon waits before reading again
 * @param parquet {@code mirror.parquet.*}: compression, row-group and page sizes
 * @param keepSnapshots {@code mirror.snapshots.keep}: each table keeps at least its newest this many snapshots ...
 * @param keepSnapshotsFor {@code mirror.snapshots.keep-ms}: ... and every snapshot younger than this
 * @param compactionFiles {@code mirror.compaction.files}: a table with this many small files or files with deleted
 *     rows is compacted (0: never)
 * @param analyticalTtlInterval {@code mirror.analytical-ttl.interval-ms}: how often the rows of documents past their
 *     container's analytical TTL are deleted from the tables, in a commit of its own
 * @param backfillReaders {@code mirror.backfill.readers}: feed ranges a backfill reads ahead at once, each on its own
 *     thread, while one thread flattens and writes
 * @param catalog {@code mirror.catalog.*}: the Iceberg catalog
 */
public record MirrorConfig(int batchMaxEvents, Duration batchMaxInterval, Duration pollInterval,
        ParquetOptions parquet, int keepSnapshots, Duration keepSnapshotsFor, int compactionFiles,
        Duration analyticalTtlInterval, int backfillReaders, CatalogOptions catalog) {
    public static final List<ConfigOption> OPTIONS = List.of(
            new ConfigOption("mirror.batch.max-events", "50000",
                    "A batch (one commit: Parquet files and a snapshot of each table it changed) closes when it "
                            + "holds this many changes."),
            new ConfigOption("mirror.batch.max-interval-ms", "500",
                    "... or when its first change is this many milliseconds old: counted from the change's commit "
                            + "in the store once the mirror has caught up, from its read while it works through a "
                            + "backlog. An idle mirror is at most about this far behind the store (a little more "
                            + "under load: the commit itself)."),
            new ConfigOption("mirror.poll-interval-ms", "200",
                    "How long a caught-up daemon waits before reading the change feed again."),
            new ConfigOption("mirror.parquet.compression", "zstd",
                    "Compression of Parquet files: zstd, gzip, lz4_raw or uncompressed."),
            new ConfigOption("mirror.parquet.row-group-bytes", "33554432",
                    "A row group closes when its buffered size reaches this many bytes (32 MiB: about 100,000 "
                            + "narrow rows, small enough for min/max statistics to skip row groups)."),
            new ConfigOption("mirror.parquet.page-bytes", "1048576", "Target size of a Parquet page."),
            new ConfigOption("mirror.snapshots.keep", "10",
                    "Each table keeps at least its newest this many Iceberg snapshots ..."),
            new ConfigOption("mirror.snapshots.keep-ms", "60000",
                    "... and every snapshot younger than this many milliseconds; older ones expire between batches, "
                            + "with the files only they need, unless a reader holds them (the SQL endpoint and a "
                            + "reconcile take a lease, in `_readers/`, on the batch they read). Files no snapshot "
                            + "lists (a crash's leftovers) are removed once this old, when no reader holds a lease."),
            new ConfigOption("mirror.compaction.files", "10",
                    "A table is compacted between batches when it has this many small files (under 128 MiB) or "
                            + "files with deleted rows: they are rewritten into one file of their live rows, an "
                            + "Iceberg rewrite that changes no query result. 0 turns compaction off."),
            new ConfigOption("mirror.analytical-ttl.interval-ms", "60000",
                    "How often each container's analytical TTL is applied to its tables: a commit of its own "
                            + "deletes the rows of the documents whose `_ts` is past the TTL, their child rows and "
                            + "their history entries, so that every engine reading the tables leaves them out, not "
                            + "only the SQL endpoint (whose views leave them out as soon as they expire). A check "
                            + "that finds nothing due reads no data file."),
            new ConfigOption("mirror.backfill.readers", "1",
                    "How many feed ranges a backfill reads (snapshot scan and JSON parsing) at once, each on its own "
                            + "thread, ahead of the one thread that flattens (encoder threads, one per core, write "
                            + "Parquet). 1 keeps both cores of a small machine busy."),
            new ConfigOption("mirror.catalog.type", "sqlite",
                    "The Iceberg catalog: `sqlite` (JdbcCatalog in the mirror directory's "
                            + "`catalog.db`, nothing to run) or `rest` (an Iceberg REST catalog service; the SQL "
                            + "endpoint, status and reconcile read the embedded catalog only, for now)."),
            new ConfigOption("mirror.catalog.uri", "", "The REST catalog's base URI (`http://host:8181`)."),
            new ConfigOption("mirror.catalog.warehouse", "",
                    "Where the tables' files go, with either catalog: a local `file:` location, or "
                            + "`s3://bucket/prefix` in an S3-compatible object store (written through Iceberg's "
                            + "S3FileIO; `mirror.catalog.s3.*`); empty: the mirror directory's `warehouse/`. The SQL "
                            + "endpoint, status and reconcile read local warehouses only: tables in an object store "
                            + "are for Spark, Trino or pyiceberg."),
            new ConfigOption("mirror.catalog.credential", "",
                    "OAuth2 client credentials (`id:secret`) for the REST catalog; empty: none."),
            new ConfigOption("mirror.catalog.token", "", "A bearer token for the REST catalog; empty: none."),
            new ConfigOption("mirror.catalog.s3.endpoint", "",
                    "The URL of an S3-compatible service (MinIO, Ceph, S3Proxy) for an `s3://` warehouse; empty: "
                            + "AWS S3."),
            new ConfigOption("mirror.catalog.s3.region", "",
                    "The region an `s3://` warehouse's requests are signed for (any one for most S3-compatible "
                            + "services, e.g. `us-east-1`); empty: the AWS SDK's default (`AWS_REGION`, "
                            + "`~/.aws/config`)."),
            new ConfigOption("mirror.catalog.s3.path-style-access", "false",
                    "Address an `s3://` warehouse's objects as `endpoint/bucket/key` rather than "
                            + "`bucket.endpoint/key`, as most S3-compatible services want."),
            new ConfigOption("mirror.catalog.s3.access-key-id", "",
                    "The access key id for an `s3://` warehouse, with `mirror.catalog.s3.secret-access-key`; "
                            + "empty: the AWS SDK's default credential chain (environment, `~/.aws/credentials`, "
                            + "an instance or container role)."),
            new ConfigOption("mirror.catalog.s3.secret-access-key", "",
                    "The secret access key that goes with `mirror.catalog.s3.access-key-id`; never logged or "
                            + "shown."));

    public MirrorConfig {
        requireNonNull(batchMaxInterval, "batchMaxInterval is null");
        requireNonNull(pollInterval, "pollInterval is null");
        requireNonNull(parquet, "parquet is null");
        if (batchMaxEvents < 1) {
            throw ConfigSection.invalid("mirror.batch.max-events", batchMaxEvents, "must be at least 1");
        }
        if (batchMaxInterval.isNegative()) {
            throw ConfigSection.invalid("mirror.batch.max-interval-ms", batchMaxInterval.toMillis(), "must not be negative");
        }
        if (pollInterval.isNegative() || pollInterval.isZero()) {
            throw ConfigSection.invalid("mirror.poll-interval-ms", pollInterval.toMillis(), "must be positive");
        }
        if (parquet.rowGroupBytes() < 1 << 16) {
            throw ConfigSection.invalid("mirror.parquet.row-group-bytes", parquet.rowGroupBytes(), "must be at least 65536");
        }
        if (parquet.pageBytes() < 1 << 12) {
            throw ConfigSection.invalid("mirror.parquet.page-bytes", parquet.pageBytes(), "must be at least 4096");
        }
        if (keepSnapshots < 1) {
            throw ConfigSection.invalid("mirror.snapshots.keep", keepSnapshots, "must be at least 1");
        }
        requireNonNull(keepSnapshotsFor, "keepSnapshotsFor is null");
        if (keepSnapshotsFor.isNegative()) {
            throw ConfigSection.invalid("mirror.snapshots.keep-ms", keepSnapshotsFor.toMillis(), "must not be negative");
        }
        if (compactionFiles < 0 || compactionFiles == 1) {
            throw ConfigSection.invalid("mirror.compaction.files", compactionFiles, "must be 0 (off) or at least 2");
        }
        requireNonNull(analyticalTtlInterval, "analyticalTtlInterval is null");
        if (analyticalTtlInterval.isNegative() || analyticalTtlInterval.isZero()) {
            throw ConfigSection.invalid("mirror.analytical-ttl.interval-ms", analyticalTtlInterval.toMillis(),
                    "must be positive");
        }
        if (backfillReaders < 1) {
            throw ConfigSection.invalid("mirror.backfill.readers", backfillReaders, "must be at least 1");
        }
        requireNonNull(catalog, "catalog is null");
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
        ConfigSection section = ConfigSection.of("mirror.", OPTIONS, properties);
        return new MirrorConfig(
                section.intValue("mirror.batch.max-events"),
                Duration.ofMillis(section.longValue("mirror.batch.max-interval-ms")),
                Duration.ofMillis(section.longValue("mirror.poll-interval-ms")),
                new ParquetOptions(compression(section.text("mirror.parquet.compression").trim()),
                        section.longValue("mirror.parquet.row-group-bytes"),
                        section.intValue("mirror.parquet.page-bytes")),
                section.intValue("mirror.snapshots.keep"),
                Duration.ofMillis(section.longValue("mirror.snapshots.keep-ms")),
                section.intValue("mirror.compaction.files"),
                Duration.ofMillis(section.longValue("mirror.analytical-ttl.interval-ms")),
                section.intValue("mirror.backfill.readers"),
                new CatalogOptions(section.text("mirror.catalog.type"), section.text("mirror.catalog.uri").trim(),
                        section.text("mirror.catalog.warehouse").trim(), section.text("mirror.catalog.credential"),
                        section.text("mirror.catalog.token"),
                        new ObjectStoreOptions(section.text("mirror.catalog.s3.endpoint").trim(),
                                section.text("mirror.catalog.s3.region").trim(),
                                section.booleanValue("mirror.catalog.s3.path-style-access"),
                                section.text("mirror.catalog.s3.access-key-id").trim(),
                                section.text("mirror.catalog.s3.secret-access-key"))));
    }

    public MirrorConfig withBatch(int maxEvents, Duration maxInterval) {
        return new MirrorConfig(maxEvents, maxInterval, pollInterval, parquet, keepSnapshots, keepSnapshotsFor,
                compactionFiles, analyticalTtlInterval, backfillReaders, catalog);
    }

    /** Compaction at {@code files} small files (0: off), snapshots kept for {@code keepFor}. */
    public MirrorConfig withCompaction(int files, Duration keepFor) {
        return new MirrorConfig(batchMaxEvents, batchMaxInterval, pollInterval, parquet, keepSnapshots, keepFor, files,
                analyticalTtlInterval, backfillReaders, catalog);
    }

    /** This configuration with its tables in {@code catalog}. */
    public MirrorConfig withCatalog(CatalogOptions catalog) {
        return new MirrorConfig(batchMaxEvents, batchMaxInterval, pollInterval, parquet, keepSnapshots,
                keepSnapshotsFor, compactionFiles, analyticalTtlInterval, backfillReaders, catalog);
    }

    private static CompressionCodecName compression(String text) {
        return switch (text.toLowerCase(Locale.ROOT)) {
            case "zstd" -> CompressionCodecName.ZSTD;
            case "gzip" -> CompressionCodecName.GZIP;
            case "lz4_raw" -> CompressionCodecName.LZ4_RAW;
            case "uncompressed" -> CompressionCodecName.UNCOMPRESSED;
            default -> throw ConfigSection.invalid("mirror.parquet.compression", text,
                    "must be zstd, gzip, lz4_raw or uncompressed");
        };
    }
}
