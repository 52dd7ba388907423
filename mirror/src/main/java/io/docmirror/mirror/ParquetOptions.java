package io.docmirror.mirror;

import org.apache.parquet.hadoop.metadata.CompressionCodecName;

import static java.util.Objects.requireNonNull;

/**
 * How Parquet files are written.
 *
 * @param compression {@code mirror.parquet.compression}
 * @param rowGroupBytes {@code mirror.parquet.row-group-bytes}: a row group closes when its buffered (uncompressed)
 *     size reaches this; small enough that min/max statistics prune (about 100,000 narrow rows), unlike
 *     parquet-avro's default of 128 MiB
 * @param pageBytes {@code mirror.parquet.page-bytes}
 */
public record ParquetOptions(CompressionCodecName compression, long rowGroupBytes, int pageBytes) {
    public ParquetOptions {
        requireNonNull(compression, "compression is null");
    }

    public static ParquetOptions defaults() {
        return new ParquetOptions(CompressionCodecName.ZSTD, 32L << 20, 1 << 20);
    }
}
