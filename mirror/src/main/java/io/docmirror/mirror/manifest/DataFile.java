package io.docmirror.mirror.manifest;

import static java.util.Objects.requireNonNull;

/**
 * One Parquet file of a table.
 *
 * @param path relative to the container's mirror directory ({@code orders/data-000000000042-0.parquet})
 * @param kind {@code BASE} (at most one row per key, written by backfill or compaction) or {@code DELTA} (newer
 *     versions and tombstones written by streaming)
 * @param rows how many rows the file holds
 * @param minLsn the smallest {@code _lsn} in the file
 * @param maxLsn the largest {@code _lsn} in the file
 * @param bytes the file's size
 */
public record DataFile(String path, Kind kind, long rows, long minLsn, long maxLsn, long bytes) {
    public enum Kind { BASE, DELTA }

    public DataFile {
        requireNonNull(path, "path is null");
        requireNonNull(kind, "kind is null");
    }
}
