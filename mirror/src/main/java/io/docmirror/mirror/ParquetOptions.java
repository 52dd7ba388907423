package io.docmirror.mirror;

import org.apache.parquet.hadoop.metadata.CompressionCodecName;

import static java.util.Objects.requireNonNull;

/**
 * How Parquet files are written.
 *
 * @param compression {@code mirror.parquet.compression}, of every file
 * @param rowGroupBytes {@code mirror.parquet.row-group-bytes}: in the files Iceberg's Parquet writer writes (the
 *     history, the dead letters, streamed batches), a row group closes when its buffered size reaches this;
 *     DuckDB writes the flattened tables' files that last with row groups of 122,880 rows
 * @param pageBytes {@code mirror.parquet.page-bytes}, of the files Iceberg's Parquet writer writes
 * @param fileRows {@code mirror.parquet.file-rows}: a data file a backfill, a rebuild or a repair writes holds at most
 *     this many rows
 */
public record ParquetOptions(CompressionCodecName compression, long rowGroupBytes, int pageBytes, long fileRows) {
    public ParquetOptions {
        requireNonNull(compression, "compression is null");
    }

    public static ParquetOptions defaults() {
        return new ParquetOptions(CompressionCodecName.ZSTD, 32L << 20, 1 << 20, 10_000_000);
    }
}
