package io.docmirror.mirror.parquet;

import io.docmirror.mirror.manifest.DataFile;
import io.docmirror.mirror.manifest.DurableFiles;
import org.apache.avro.Conversions;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.avro.AvroParquetWriter;
import org.apache.parquet.avro.AvroWriteSupport;
import org.apache.parquet.hadoop.ParquetFileWriter.Mode;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.io.LocalOutputFile;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static java.util.Objects.requireNonNull;

/**
 * Writes one Parquet file of records of one Avro schema, keeping the row count and LSN range the manifest records.
 * Rows stream to disk as row groups fill, so memory stays bounded whatever the file's size. {@link #finish} closes
 * and fsyncs the file.
 *
 * <p>Only base files are dictionary encoded. A delta file lives until the next compaction folds it into a base file,
 * and most of its strings (ids, partition keys, names, the history's documents) are distinct, so building their
 * dictionaries, only to fall back to plain encoding, took 40% of the streaming daemon's time.
 */
public final class ParquetDataFileWriter implements AutoCloseable {
    private static final GenericData MODEL = new GenericData();

    static {
        MODEL.addLogicalTypeConversion(new Conversions.DecimalConversion());
    }

    private final Path file;
    private final String relativePath;
    private final DataFile.Kind kind;
    private final int lsnField;
    private final ParquetWriter<GenericRecord> writer;
    private long rows;
    private long minLsn = Long.MAX_VALUE;
    private long maxLsn = Long.MIN_VALUE;
    private boolean finished;

    /**
     * @param containerDirectory what the manifest's paths are relative to
     * @param relativePath the new file's path below it
     * @param lsnField the record field holding {@code _lsn}
     */
    public ParquetDataFileWriter(Path containerDirectory, String relativePath, DataFile.Kind kind, Schema schema,
            int lsnField, ParquetOptions options) {
        this.relativePath = requireNonNull(relativePath, "relativePath is null");
        this.kind = requireNonNull(kind, "kind is null");
        this.file = containerDirectory.resolve(relativePath);
        this.lsnField = lsnField;
        Configuration conf = new Configuration(false);
        // Standard three-level lists with nullable elements, as DuckDB and Spark write them.
        conf.setBoolean(AvroWriteSupport.WRITE_OLD_LIST_STRUCTURE, false);
        try {
            Files.createDirectories(file.getParent());
            this.writer = AvroParquetWriter.<GenericRecord>builder(new LocalOutputFile(file))
                    .withSchema(schema)
                    .withDataModel(MODEL)
                    .withConf(conf)
                    .withCompressionCodec(options.compression())
                    .withRowGroupSize(options.rowGroupBytes())
                    .withPageSize(options.pageBytes())
                    .withWriteMode(Mode.OVERWRITE)
                    .withDictionaryEncoding(kind == DataFile.Kind.BASE)
                    .build();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot create Parquet file " + file, e);
        }
    }

    public void write(GenericRecord record) {
        try {
            writer.write(record);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write to Parquet file " + file, e);
        }
        long lsn = (Long) record.get(lsnField);
        minLsn = Math.min(minLsn, lsn);
        maxLsn = Math.max(maxLsn, lsn);
        rows++;
    }

    public long rows() {
        return rows;
    }

    /** Closes and fsyncs the file; what the manifest records of it. */
    public DataFile finish() {
        try {
            finished = true;
            writer.close();
            DurableFiles.fsync(file);
            return new DataFile(relativePath, kind, rows, minLsn, maxLsn, Files.size(file));
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot finish Parquet file " + file, e);
        }
    }

    /** Abandons an unfinished file (a failed batch): closes and deletes it. */
    @Override
    public void close() {
        if (finished) {
            return;
        }
        finished = true;
        try {
            writer.close();
            Files.deleteIfExists(file);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot remove abandoned Parquet file " + file, e);
        }
    }
}
