package io.docmirror.mirror;

import io.docmirror.config.ConfigOption;
import io.docmirror.config.ConfigRule;
import io.docmirror.config.ConfigSection;
import io.docmirror.layout.CatalogOptions;
import io.docmirror.mirror.ParquetOptions;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

import static java.util.Objects.requireNonNull;

/**
 * How the mirror batches and writes ({@code mirror.*}). Every option is declared once below, with a default that keeps
 * the mirror about a second behind the store when idle and fast under load; docs/configuration.md is generated from
 * the declarations.
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
 * @param snapshotLoadAbove {@code mirror.initial-load.snapshot-above-events}: a container mirrored for the first
 *     time with at least this many changes to read is loaded from a snapshot of the store (-1: never)
 * @param catalog {@code mirror.catalog.*}: the Iceberg catalog
 */
public record MirrorConfig(int batchMaxEvents, Duration batchMaxInterval, Duration pollInterval,
        ParquetOptions parquet, int keepSnapshots, Duration keepSnapshotsFor, int compactionFiles,
        Duration analyticalTtlInterval, int backfillReaders, long snapshotLoadAbove, CatalogOptions catalog) {
    public static final ConfigOption BATCH_MAX_EVENTS = new ConfigOption("mirror.batch.max-events", "50000",
            "A batch (one commit: Parquet files and a snapshot of each table it changed) closes when it holds this "
                    + "many changes. A commit of the analytical TTL deletes about this many documents at most (and "
                    + "as many history entries); more due wait for the next upkeep.")
            .withRule(ConfigRule.atLeast(1));
    public static final ConfigOption BATCH_MAX_INTERVAL_MS = new ConfigOption("mirror.batch.max-interval-ms",
            "500", "... or when its first change is this many milliseconds old: counted from the change's commit in "
                    + "the store once the mirror has caught up, from its read while it works through a backlog. An "
                    + "idle mirror is at most about this far behind the store (a little more under load: the commit "
                    + "itself).")
            .withRule(ConfigRule.atLeast(0));
    public static final ConfigOption POLL_INTERVAL_MS = new ConfigOption("mirror.poll-interval-ms", "200",
            "How long a caught-up daemon waits before reading the change feed again.")
            .withRule(ConfigRule.atLeast(1));
    public static final ConfigOption PARQUET_COMPRESSION = new ConfigOption("mirror.parquet.compression", "zstd",
            "Compression of Parquet files: `zstd`, `gzip`, `lz4_raw` or `uncompressed`.")
            .withRule(ConfigRule.oneOf("zstd", "gzip", "lz4_raw", "uncompressed"));
    public static final ConfigOption PARQUET_ROW_GROUP_BYTES = new ConfigOption("mirror.parquet.row-group-bytes",
            "33554432", "In the files Iceberg's Parquet writer writes (the history, the dead letters, rows a "
                    + "widening copies, streamed batches), a row group closes when its buffered size reaches this "
                    + "many bytes. The flattened tables' files that last (a backfill's, a compaction's) are written "
                    + "by DuckDB, with row groups of 122,880 rows.")
            .withRule(ConfigRule.atLeast(1 << 16));
    public static final ConfigOption PARQUET_PAGE_BYTES = new ConfigOption("mirror.parquet.page-bytes", "1048576",
            "Target size of a Parquet page in the files Iceberg's Parquet writer writes (see "
                    + "`mirror.parquet.row-group-bytes`).")
            .withRule(ConfigRule.atLeast(1 << 12));
    public static final ConfigOption PARQUET_FILE_ROWS = new ConfigOption("mirror.parquet.file-rows", "10000000",
            "A data file that a backfill, a rebuild or a repair writes holds at most this many rows; the next rows go "
                    + "into a new file. So a large container's tables are many files of a bounded size, which "
                    + "engines read in parallel, rather than one file per table. A streamed batch's files are small "
                    + "anyway.")
            .withRule(ConfigRule.atLeast(1));
    public static final ConfigOption SNAPSHOTS_KEEP = new ConfigOption("mirror.snapshots.keep", "10",
            "Each table keeps at least its newest this many Iceberg snapshots ...")
            .withRule(ConfigRule.atLeast(1));
    public static final ConfigOption SNAPSHOTS_KEEP_MS = new ConfigOption("mirror.snapshots.keep-ms", "60000",
            "... and every snapshot younger than this many milliseconds; older ones expire between batches, with the "
                    + "files only they need, unless a reader holds them (the SQL endpoint and a reconcile take a "
                    + "lease, in `_readers/`, on the batch they read). Files no snapshot lists (a crash's leftovers) "
                    + "are removed once this old, when no reader holds a lease.")
            .withRule(ConfigRule.atLeast(0));
    public static final ConfigOption COMPACTION_FILES = new ConfigOption("mirror.compaction.files", "10",
            "A table is compacted between batches when it has this many files of one size tier (under 1 MiB, "
                    + "under 10 MiB, under 100 MiB, under 128 MiB, by their live rows): they are rewritten into one "
                    + "file of their live rows, an Iceberg rewrite that changes no query result. So the small files "
                    + "of recent batches merge often and cheaply, and a large file is read again only when as many "
                    + "of its size have gathered. A file of 1 MiB or more is also rewritten on its own once a "
                    + "tenth of its rows are deleted (superseded by updates, or deleted). 0 turns compaction off.")
            .withRule(ConfigRule.atLeastOr(2, 0, "off"));
    public static final ConfigOption ANALYTICAL_TTL_INTERVAL_MS = new ConfigOption(
            "mirror.analytical-ttl.interval-ms", "60000",
            "How often each container's analytical TTL is applied to its tables: a commit of its own (commit kind "
                    + "`ttl`) deletes the rows of the documents whose `_ts` is past the TTL, their child rows and "
                    + "their history entries, so that every engine reading the tables leaves them out, not only the "
                    + "SQL endpoint (whose views leave them out as soon as they expire). A check that finds nothing "
                    + "due reads no data file, only the manifests' `_ts` statistics. Must be positive.")
            .withRule(ConfigRule.atLeast(1));
    public static final ConfigOption BACKFILL_READERS = new ConfigOption("mirror.backfill.readers", "1",
            "How many feed ranges a backfill reads (snapshot scan and JSON parsing) at once, each on its own thread, "
                    + "ahead of the one thread that flattens (Parquet is written on other threads: DuckDB's, one a "
                    + "file being written, and for the history one a core). 1 keeps both cores of a small machine "
                    + "busy.")
            .withRule(ConfigRule.atLeast(1));
    public static final ConfigOption SNAPSHOT_LOAD_ABOVE_EVENTS = new ConfigOption(
            "mirror.initial-load.snapshot-above-events", "10000",
            "A container mirrored for the first time whose change feed holds at least this many changes (or no "
                    + "longer holds its first changes, which retention removed) is loaded from a snapshot of the store, straight into its tables as `docmirror backfill` does (several "
                    + "times faster than replaying the changes one by one), and then followed from the snapshot's "
                    + "position, with no gap and no duplicate. Its history then starts with each document's version "
                    + "at the snapshot, as Debezium's initial snapshot does: the earlier versions and deletes still "
                    + "in the change log are not replayed into it. Below this many changes, or with -1, the changes "
                    + "are replayed. Snapshots need the store itself (`--data`); a mirror reading a store over HTTP "
                    + "always replays. A load a killed process began is finished the same way.")
            .withRule(ConfigRule.atLeastOr(0, -1, "never"));
    public static final List<ConfigOption> OPTIONS = Stream.concat(Stream.of(BATCH_MAX_EVENTS, BATCH_MAX_INTERVAL_MS,
                    POLL_INTERVAL_MS, PARQUET_COMPRESSION, PARQUET_ROW_GROUP_BYTES, PARQUET_PAGE_BYTES,
                    PARQUET_FILE_ROWS, SNAPSHOTS_KEEP,
                    SNAPSHOTS_KEEP_MS, COMPACTION_FILES, ANALYTICAL_TTL_INTERVAL_MS, BACKFILL_READERS,
                    SNAPSHOT_LOAD_ABOVE_EVENTS),
            // Declared with the tables' layout, which the SQL endpoint reads them through too.
            CatalogOptions.OPTIONS.stream()).toList();

    public MirrorConfig {
        requireNonNull(batchMaxInterval, "batchMaxInterval is null");
        requireNonNull(pollInterval, "pollInterval is null");
        requireNonNull(parquet, "parquet is null");
        BATCH_MAX_EVENTS.check(batchMaxEvents);
        BATCH_MAX_INTERVAL_MS.check(batchMaxInterval.toMillis());
        POLL_INTERVAL_MS.check(pollInterval.toMillis());
        PARQUET_ROW_GROUP_BYTES.check(parquet.rowGroupBytes());
        PARQUET_PAGE_BYTES.check(parquet.pageBytes());
        PARQUET_FILE_ROWS.check(parquet.fileRows());
        SNAPSHOTS_KEEP.check(keepSnapshots);
        requireNonNull(keepSnapshotsFor, "keepSnapshotsFor is null");
        SNAPSHOTS_KEEP_MS.check(keepSnapshotsFor.toMillis());
        COMPACTION_FILES.check(compactionFiles);
        requireNonNull(analyticalTtlInterval, "analyticalTtlInterval is null");
        ANALYTICAL_TTL_INTERVAL_MS.check(analyticalTtlInterval.toMillis());
        BACKFILL_READERS.check(backfillReaders);
        SNAPSHOT_LOAD_ABOVE_EVENTS.check(snapshotLoadAbove);
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
                section.intValue(BATCH_MAX_EVENTS),
                Duration.ofMillis(section.longValue(BATCH_MAX_INTERVAL_MS)),
                Duration.ofMillis(section.longValue(POLL_INTERVAL_MS)),
                new ParquetOptions(compression(section.text(PARQUET_COMPRESSION).trim()),
                        section.longValue(PARQUET_ROW_GROUP_BYTES),
                        section.intValue(PARQUET_PAGE_BYTES),
                        section.longValue(PARQUET_FILE_ROWS)),
                section.intValue(SNAPSHOTS_KEEP),
                Duration.ofMillis(section.longValue(SNAPSHOTS_KEEP_MS)),
                section.intValue(COMPACTION_FILES),
                Duration.ofMillis(section.longValue(ANALYTICAL_TTL_INTERVAL_MS)),
                section.intValue(BACKFILL_READERS),
                section.longValue(SNAPSHOT_LOAD_ABOVE_EVENTS),
                CatalogOptions.fromProperties(properties));
    }

    public MirrorConfig withBatch(int maxEvents, Duration maxInterval) {
        return new MirrorConfig(maxEvents, maxInterval, pollInterval, parquet, keepSnapshots, keepSnapshotsFor,
                compactionFiles, analyticalTtlInterval, backfillReaders, snapshotLoadAbove, catalog);
    }

    /** Compaction at {@code files} small files (0: off), snapshots kept for {@code keepFor}. */
    public MirrorConfig withCompaction(int files, Duration keepFor) {
        return new MirrorConfig(batchMaxEvents, batchMaxInterval, pollInterval, parquet, keepSnapshots, keepFor, files,
                analyticalTtlInterval, backfillReaders, snapshotLoadAbove, catalog);
    }

    /** This configuration with its tables in {@code catalog}. */
    public MirrorConfig withCatalog(CatalogOptions catalog) {
        return new MirrorConfig(batchMaxEvents, batchMaxInterval, pollInterval, parquet, keepSnapshots,
                keepSnapshotsFor, compactionFiles, analyticalTtlInterval, backfillReaders, snapshotLoadAbove,
                catalog);
    }

    /** This configuration loading a first mirror from a snapshot when its feed holds at least {@code events}. */
    public MirrorConfig withSnapshotLoadAbove(long events) {
        return new MirrorConfig(batchMaxEvents, batchMaxInterval, pollInterval, parquet, keepSnapshots,
                keepSnapshotsFor, compactionFiles, analyticalTtlInterval, backfillReaders, events, catalog);
    }

    private static CompressionCodecName compression(String text) {
        return switch (text.toLowerCase(Locale.ROOT)) {
            case "zstd" -> CompressionCodecName.ZSTD;
            case "gzip" -> CompressionCodecName.GZIP;
            case "lz4_raw" -> CompressionCodecName.LZ4_RAW;
            case "uncompressed" -> CompressionCodecName.UNCOMPRESSED;
            default -> throw PARQUET_COMPRESSION.invalid(text, "must be " + PARQUET_COMPRESSION.rule().text());
        };
    }
}
