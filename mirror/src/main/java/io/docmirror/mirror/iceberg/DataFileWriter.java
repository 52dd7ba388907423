package io.docmirror.mirror.iceberg;

import io.docmirror.flatten.Row;
import io.docmirror.mirror.MirrorException;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.parquet.Parquet;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Writes one Parquet data file of a table with Iceberg's Parquet writer, and says at which position each row landed:
 * a deletion vector names rows by these positions. The rows are made into records and encoded on the
 * {@link EncoderThreads}, in chunks, in the order written; a row handed over must not change afterwards. It writes
 * Iceberg records (the history, the dead letters, rows a widening copies) and a streamed batch's flattened rows;
 * the flattened rows of the files that last are written by {@link DuckDbFileWriter}.
 */
final class DataFileWriter implements OpenDataFile {
    /** Rows handed to the encoder threads at a time: enough that handing over costs little. */
    private static final int CHUNK_ROWS = 512;
    /** parquet-java's switch for dictionary encoding, which Iceberg's writer passes on. */
    private static final String DICTIONARY_ENCODING = "parquet.enable.dictionary";
    /**
     * The most a column chunk's dictionary may hold before its values are written plain. A column of few distinct
     * values (the history's operation, its partition keys) keeps its dictionary, which DuckDB reads two to three
     * times faster than plain values; a column of distinct ones (ids, the history's documents) gives up after this
     * much, before hashing its values costs much: with Iceberg's default of 2 MB a profile put dictionary encoding at
     * half of the encoding time (BENCHMARKS.md, issue 29).
     */
    private static final String DICTIONARY_BYTES = Integer.toString(64 * 1024);

    private final String location;
    private final Table table;
    private final Schema schema;
    private final boolean dictionaries;
    private final EncoderThreads encoders;
    /**
     * Opened by the first chunk's encoding, on an encoder thread: building Iceberg's Parquet writer parses Hadoop's
     * default configuration, some milliseconds a file that the flattening thread need not wait for. Null until then
     * (and for a file abandoned before a row was encoded); read on other threads only after {@link #awaitEncoded}.
     */
    private DataWriter<Record> writer;
    /** What turns the flattener's rows into records of the file's schema; null until a flattened row comes. */
    private RowRecords records;
    /** Rows not handed over yet: records, and flattened rows that the encoder threads make into records. */
    private List<Object> chunk = new ArrayList<>(CHUNK_ROWS);
    /** Done when every chunk handed over so far is encoded; failed as the first chunk that failed. */
    private CompletableFuture<Void> encoded = CompletableFuture.completedFuture(null);
    private long rows;
    private boolean finished;

    /**
     * A new data file of {@code table} for rows of {@code schema}, named {@code fileName} in its data folder.
     *
     * @param dictionaries whether to encode columns of few distinct values with dictionaries (up to
     *     {@link #DICTIONARY_BYTES}): for the files that last (a backfill's history, a rebuild's), not for the small
     *     files of streamed batches, which compaction soon rewrites and whose commits the daemon waits for
     */
    DataFileWriter(Table table, Schema schema, String fileName, EncoderThreads encoders, boolean dictionaries) {
        this.location = table.locationProvider().newDataLocation(fileName);
        this.table = table;
        this.schema = schema;
        this.dictionaries = dictionaries;
        this.encoders = encoders;
    }

    private DataWriter<Record> open() {
        try {
            return Parquet.writeData(table.io().newOutputFile(location))
                    .schema(schema)
                    .withSpec(table.spec())
                    .setAll(table.properties())
                    .set(DICTIONARY_ENCODING, Boolean.toString(dictionaries))
                    .set(TableProperties.PARQUET_DICT_SIZE_BYTES, DICTIONARY_BYTES)
                    .metricsConfig(MetricsConfig.forTable(table))
                    .createWriterFunc(GenericParquetWriter::create)
                    .build();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot create the data file " + location, e);
        }
    }

    @Override
    public String location() {
        return location;
    }

    /**
     * Writes a row; returns its position in the file.
     *
     * @throws MirrorException when encoding an earlier row failed, with the code of its cause
     */
    long write(Record row) {
        return add(row);
    }

    /**
     * Writes a flattened row, which {@code records} makes into a record on an encoder thread; returns its position
     * in the file. Every flattened row of a file is of one schema, so of one {@link RowRecords}.
     *
     * @throws MirrorException when encoding an earlier row failed, with the code of its cause
     */
    long write(Row row, RowRecords records) {
        if (this.records == null) {
            this.records = records;
        } else if (this.records != records) {
            throw new IllegalStateException("The data file " + location + " takes rows of one schema, made into "
                    + "records by one RowRecords");
        }
        records.check(row);
        return add(row);
    }

    private long add(Object row) {
        chunk.add(row);
        if (chunk.size() == CHUNK_ROWS) {
            handOver();
        }
        return rows++;
    }

    private void handOver() {
        if (encoded.isCompletedExceptionally()) {
            awaitEncoded();
        }
        List<Object> handed = chunk;
        RowRecords converter = records;
        chunk = new ArrayList<>(CHUNK_ROWS);
        encoded = encoders.after(encoded, () -> {
            if (writer == null) {
                writer = open();
            }
            for (Object row : handed) {
                writer.write(row instanceof Row flattened ? converter.record(flattened) : (Record) row);
            }
        });
    }

    /** Waits until every chunk handed over is encoded, throwing the first failure. */
    private void awaitEncoded() {
        OpenDataFile.await(encoded, location);
    }

    /** Closes the file, durably; what a commit adds to the table. */
    @Override
    public DataFile finish() {
        if (!chunk.isEmpty()) {
            handOver();
        }
        awaitEncoded();
        if (writer == null) {
            writer = open();
        }
        close();
        return writer.toDataFile();
    }

    /** Closes the file, once what was handed over is encoded; it holds what was encoded. */
    @Override
    public void close() {
        if (finished) {
            return;
        }
        finished = true;
        RuntimeException failure = null;
        try {
            awaitEncoded();
        } catch (RuntimeException e) {
            failure = e;
        }
        try {
            if (writer != null) {
                writer.close();
            }
        } catch (IOException | RuntimeException e) {
            RuntimeException closing = e instanceof IOException io
                    ? new UncheckedIOException("Cannot write the data file " + location, io) : (RuntimeException) e;
            if (failure == null) {
                failure = closing;
            } else {
                failure.addSuppressed(closing);
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
