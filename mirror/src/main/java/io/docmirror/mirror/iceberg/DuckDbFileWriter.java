package io.docmirror.mirror.iceberg;

import io.docmirror.flatten.Row;
import io.docmirror.mirror.MirrorErrorCode;
import io.docmirror.mirror.MirrorException;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Table;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;

/**
 * Writes one Parquet data file of a flattened table with DuckDB's Parquet writer, and says at which position each row
 * landed: a deletion vector names rows by these positions. Rows go over in chunks to a {@code COPY} that DuckDB runs
 * on a thread of {@link DuckDbWriters} while the flattener goes on; the chunks reach it as an Arrow stream, made into
 * vectors on that thread ({@link RowVectors}), and land in the order written. A row handed over must not change
 * afterwards.
 *
 * <p>Why DuckDB's writer and not Iceberg's: the SQL endpoint reads the files with DuckDB, which reads its own writer's
 * files twice as fast or more ({@link DuckDbParquet}), for about the same encoding time (BENCHMARKS.md, issue 29).
 */
final class DuckDbFileWriter implements OpenDataFile {
    /** Rows handed over at a time: one DuckDB vector. */
    private static final int CHUNK_ROWS = 2048;
    /** At most this many chunks wait for DuckDB; a writer with one more waits, so the rows held stay bounded. */
    private static final int CHUNKS_WAITING = 8;
    /** Ends the stream: an instance of its own, compared by identity. */
    private static final List<Row> END = Collections.unmodifiableList(new ArrayList<>());

    private final Table table;
    private final String location;
    private final DuckDbWriters writers;
    /** Emptied when the write fails, so that a writer waiting to hand over a chunk goes on and sees the failure. */
    private final BlockingQueue<List<Row>> handedOver = new ArrayBlockingQueue<>(CHUNKS_WAITING);
    /** What makes the rows vectors: every row of a file is of one schema. */
    private final RowVectors vectors;
    private List<Row> chunk = new ArrayList<>(CHUNK_ROWS);
    /** The write, its local file and its memory: started by the first chunk handed over, null until then. */
    private CompletableFuture<Void> written;
    private Path local;
    private BufferAllocator memory;
    private long rows;
    private boolean finished;

    /** A new data file of {@code table} for rows that {@code vectors} makes vectors, named {@code fileName}. */
    DuckDbFileWriter(Table table, String fileName, RowVectors vectors, DuckDbWriters writers) {
        this.table = table;
        this.vectors = vectors;
        this.location = table.locationProvider().newDataLocation(fileName);
        this.writers = writers;
    }

    @Override
    public String location() {
        return location;
    }

    /**
     * Writes a row, which {@code vectors} makes into vectors on DuckDB's thread; returns its position in the file.
     *
     * @param vectors the file's, as a check that the row's table has not changed its schema since it was opened
     * @throws MirrorException when writing an earlier row failed, with the code of its cause
     */
    long write(Row row, RowVectors vectors) {
        if (this.vectors != vectors) {
            throw new IllegalStateException("The data file " + location + " takes rows of one schema, made into "
                    + "vectors by one RowVectors");
        }
        vectors.check(row);
        chunk.add(row);
        if (chunk.size() == CHUNK_ROWS) {
            handOver(chunk);
            chunk = new ArrayList<>(CHUNK_ROWS);
        }
        return rows++;
    }

    private void handOver(List<Row> rows) {
        if (written == null) {
            start();
        }
        if (written.isCompletedExceptionally()) {
            awaitWritten();
        }
        try {
            handedOver.put(rows);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new MirrorException(MirrorErrorCode.INTERRUPTED,
                    "Interrupted while handing rows of " + location + " to DuckDB", e);
        }
    }

    private void start() {
        memory = writers.newAllocator(location);
        local = writers.localFile(table);
        written = writers.write(new RowStream(memory), memory, local,
                        DuckDbParquet.copyOptions(table, vectors.schema()))
                .whenComplete((ignored, failure) -> {
                    if (failure != null) {
                        handedOver.clear();
                    }
                });
    }

    /** Waits until DuckDB has written every row handed over, throwing its failure. */
    private void awaitWritten() {
        OpenDataFile.await(written, location);
    }

    /** Closes the file, durably; what a commit adds to the table. */
    @Override
    public DataFile finish() {
        if (!chunk.isEmpty()) {
            handOver(chunk);
            chunk = List.of();
        }
        handOver(END);
        finished = true;
        try {
            awaitWritten();
            return DuckDbParquet.dataFile(table, local, location, rows, "DuckDB's write of flattened rows");
        } finally {
            try {
                DuckDbParquet.delete(local);
            } finally {
                release();
            }
        }
    }

    /** Ends the write, once what was handed over is written, and removes its local file. */
    @Override
    public void close() {
        if (finished) {
            return;
        }
        finished = true;
        if (written == null) {
            return;
        }
        try {
            if (!written.isCompletedExceptionally()) {
                handedOver.put(END);
            }
            awaitWritten();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new MirrorException(MirrorErrorCode.INTERRUPTED,
                    "Interrupted while closing the data file " + location, e);
        } finally {
            try {
                DuckDbParquet.delete(local);
            } finally {
                release();
            }
        }
    }

    /** Frees the write's memory; once its write has ended, DuckDB holds none of it. */
    private void release() {
        if (written.isDone()) {
            memory.close();
        }
    }

    /** The chunks handed over, as DuckDB reads them: it waits for the next one. */
    private final class RowStream extends ArrowReader {
        RowStream(BufferAllocator memory) {
            super(memory);
        }

        @Override
        public boolean loadNextBatch() throws IOException {
            List<Row> next;
            try {
                next = handedOver.take();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("Interrupted while waiting for rows of " + location, e);
            }
            if (next == END) {
                return false;
            }
            vectors.fill(getVectorSchemaRoot(), next);
            return true;
        }

        @Override
        public long bytesRead() {
            return 0;
        }

        @Override
        protected void closeReadSource() {
        }

        @Override
        protected org.apache.arrow.vector.types.pojo.Schema readSchema() {
            return vectors.arrowSchema();
        }
    }
}
