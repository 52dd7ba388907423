package io.docmirror.mirror.manifest;

import com.fasterxml.jackson.annotation.JsonInclude;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

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
 * @param numberTypes the SQL type each number column had when the file was written, by physical name. Number
 *     columns widen (BIGINT, DOUBLE, DECIMAL(38,s)), so an older file may hold a narrower type than its table has
 *     now; readers convert it exactly ({@link ViewDefinitions}). Empty for history and dead-letter files.
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record DataFile(String path, Kind kind, long rows, long minLsn, long maxLsn, long bytes,
        Map<String, String> numberTypes) {
    public enum Kind { BASE, DELTA }

    public DataFile {
        requireNonNull(path, "path is null");
        requireNonNull(kind, "kind is null");
        numberTypes = numberTypes == null ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(numberTypes));
    }

    /** A file without number columns: history and dead letters. */
    public DataFile(String path, Kind kind, long rows, long minLsn, long maxLsn, long bytes) {
        this(path, kind, rows, minLsn, maxLsn, bytes, Map.of());
    }

    /** This file, recorded as holding {@code columns}' number columns in the types they have there. */
    public DataFile withNumberTypesOf(List<ColumnEntry> columns) {
        Map<String, String> types = new LinkedHashMap<>();
        for (ColumnEntry column : columns) {
            if (column.canWiden()) {
                types.put(column.physicalName(), column.type());
            }
        }
        return new DataFile(path, kind, rows, minLsn, maxLsn, bytes, types);
    }
}
