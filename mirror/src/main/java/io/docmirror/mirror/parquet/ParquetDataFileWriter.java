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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Semaphore;

import static java.util.Objects.requireNonNull;

/**
 * Writes one Parquet file of records of one Avro schema, keeping the row count and LSN range the manifest records.
 * Records go to an encoder thread in chunks, so that encoding and compressing them (most of a batch's cost) runs
 * beside the caller's flattening; a file's chunks are written one after another, in order. Rows stream to disk as
 * row groups fill, and only a few chunks wait for the encoder at a time, so memory stays bounded whatever the file's
 * size. The file is written under a hidden staging name ({@link #STAGING_SUFFIX}), so that no reader of the table's
 * folder ever meets a half-written file; {@link #finish} waits for the encoder, then closes and fsyncs it and renames
 * it to its name. Not thread-safe: one caller thread.
 *
 * <p>No dictionary encoding. Most strings of a batch are distinct (ids, partition keys, names, the history's
 * documents), and building parquet-mr's dictionaries for them, only to fall back to plain encoding, took 40% of the
 * streaming daemon's time and a third of a backfill's. The files written here are delta files, which compaction folds
 * away, and a backfill's base files, which the first compaction rewrites; compaction writes through DuckDB, which
 * chooses dictionaries per column by what they save.
 */
public final class ParquetDataFileWriter implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ParquetDataFileWriter.class);
    private static final GenericData MODEL = new GenericData();
    /** Records handed to the encoder at once: enough to make the hand-over cheap, few enough to keep memory low. */
    private static final int CHUNK_RECORDS = 1024;
    /** Chunks of one file handed over and not yet written; beyond this the caller waits for the encoder. */
    private static final int CHUNKS_IN_FLIGHT = 4;

    static {
        MODEL.addLogicalTypeConversion(new Conversions.DecimalConversion());
    }

    /** A file being written has this suffix (and a leading dot), so that a reader listing a table folder skips it. */
    public static final String STAGING_SUFFIX = ".inprogress";

    private final Path file;
    private final Path staging;
    private final String relativePath;
    private final DataFile.Kind kind;
    private final int lsnField;
    private final ParquetWriter<GenericRecord> writer;
    private final Executor encoder;
    private final Semaphore chunksInFlight = new Semaphore(CHUNKS_IN_FLIGHT);
    private List<GenericRecord> chunk = new ArrayList<>(CHUNK_RECORDS);
    /** Completes when every chunk handed over so far is written; exceptionally once one could not be. */
    private CompletableFuture<Void> written = CompletableFuture.completedFuture(null);
    private long rows;
    private long minLsn = Long.MAX_VALUE;
    private long maxLsn = Long.MIN_VALUE;
    private boolean finished;

    /**
     * @param containerDirectory what the manifest's paths are relative to
     * @param relativePath the new file's path below it
     * @param lsnField the record field holding {@code _lsn}
     * @param encoder where records are encoded and written ({@code Runnable::run}: on the caller's thread)
     */
    public ParquetDataFileWriter(Path containerDirectory, String relativePath, DataFile.Kind kind, Schema schema,
            int lsnField, ParquetOptions options, Executor encoder) {
        this.relativePath = requireNonNull(relativePath, "relativePath is null");
        this.kind = requireNonNull(kind, "kind is null");
        this.encoder = requireNonNull(encoder, "encoder is null");
        this.file = containerDirectory.resolve(relativePath);
        this.staging = file.resolveSibling("." + file.getFileName() + STAGING_SUFFIX);
        this.lsnField = lsnField;
        Configuration conf = new Configuration(false);
        // Standard three-level lists with nullable elements, as DuckDB and Spark write them.
        conf.setBoolean(AvroWriteSupport.WRITE_OLD_LIST_STRUCTURE, false);
        try {
            Files.createDirectories(file.getParent());
            this.writer = AvroParquetWriter.<GenericRecord>builder(new LocalOutputFile(staging))
                    .withSchema(schema)
                    .withDataModel(MODEL)
                    .withConf(conf)
                    .withCompressionCodec(options.compression())
                    .withRowGroupSize(options.rowGroupBytes())
                    .withPageSize(options.pageBytes())
                    .withWriteMode(Mode.OVERWRITE)
                    .withDictionaryEncoding(false)
                    .build();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot create Parquet file " + file, e);
        }
    }

    /** @throws UncheckedIOException when an earlier chunk of the file could not be written */
    public void write(GenericRecord record) {
        long lsn = (Long) record.get(lsnField);
        minLsn = Math.min(minLsn, lsn);
        maxLsn = Math.max(maxLsn, lsn);
        rows++;
        chunk.add(record);
        if (chunk.size() == CHUNK_RECORDS) {
            handOver();
        }
    }

    private void handOver() {
        if (written.isCompletedExceptionally()) {
            awaitWritten();
        }
        List<GenericRecord> records = chunk;
        chunk = new ArrayList<>(CHUNK_RECORDS);
        // Never blocks for good: every chunk in flight releases its permit, written or failed.
        chunksInFlight.acquireUninterruptibly();
        written = written.thenRunAsync(() -> encode(records), encoder)
                .whenComplete((done, failure) -> chunksInFlight.release());
    }

    private void encode(List<GenericRecord> records) {
        try {
            for (GenericRecord record : records) {
                writer.write(record);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write to Parquet file " + file, e);
        }
    }

    /** Waits until every chunk handed over is written; rethrows the failure of one that could not be. */
    private void awaitWritten() {
        try {
            written.join();
        } catch (CompletionException e) {
            if (e.getCause() instanceof RuntimeException failure) {
                throw failure;
            }
            if (e.getCause() instanceof Error error) {
                throw error;
            }
            throw e;
        }
    }

    public long rows() {
        return rows;
    }

    /** Waits for the encoder, closes and fsyncs the file; what the manifest records of it. */
    public DataFile finish() {
        if (!chunk.isEmpty()) {
            handOver();
        }
        awaitWritten();
        try {
            finished = true;
            writer.close();
            DurableFiles.fsync(staging);
            Files.move(staging, file, StandardCopyOption.ATOMIC_MOVE);
            DurableFiles.fsyncDirectory(file.getParent());
            return new DataFile(relativePath, kind, rows, minLsn, maxLsn, Files.size(file));
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot finish Parquet file " + file, e);
        }
    }

    /** Abandons an unfinished file (a failed batch): waits for the encoder, closes and deletes it. */
    @Override
    public void close() {
        if (finished) {
            return;
        }
        finished = true;
        try {
            written.join();
        } catch (CompletionException e) {
            // The batch is being abandoned, for this failure or an earlier one of the caller's.
            log.warn("An abandoned Parquet file could not be written: {}", file, e.getCause());
        }
        try {
            writer.close();
            Files.deleteIfExists(staging);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot remove abandoned Parquet file " + file, e);
        }
    }
}
