package io.docmirror.mirror.iceberg;

import io.docmirror.mirror.MirrorErrorCode;
import io.docmirror.mirror.MirrorException;
import io.docmirror.mirror.ScratchDirectory;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.iceberg.Table;
import org.duckdb.DuckDBConnection;

import java.nio.file.Path;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static io.docmirror.layout.TableView.literal;

/**
 * The DuckDB whose Parquet writer encodes a container's flattened rows ({@link DuckDbFileWriter}), and the threads
 * its writes run on: one a data file being written, each running one {@code COPY} that reads the file's rows as an
 * Arrow stream while the flattener goes on. Different tables' files are encoded at the same time.
 *
 * <p>DuckDB runs each {@code COPY} on its own thread only ({@code threads = 1}): a stream waits for rows the
 * flattener has not made yet, and a thread of DuckDB's own waiting in one table's stream would be lost to every
 * other table's. Insertion order is kept (DuckDB's default, set here because positions depend on it): the rows land
 * in the file in the order they were written.
 */
final class DuckDbWriters implements AutoCloseable {
    /** What DuckDB may hold for all the files being written: a row group (122,880 rows) each, about. */
    private static final String MEMORY_LIMIT = "2GB";

    private final String container;
    private final ScratchDirectory scratch;
    private final ExecutorService threads;
    /**
     * Started by the first file written (a daemon that only streams never writes one here), then kept; null until
     * then.
     */
    private DuckDBConnection duckDb;
    private BufferAllocator allocator;

    private DuckDbWriters(String container, ScratchDirectory scratch, ExecutorService threads) {
        this.container = container;
        this.scratch = scratch;
        this.threads = threads;
    }

    /** @param scratch where the files are written before they are copied into their tables, and DuckDB spills */
    static DuckDbWriters open(String container, ScratchDirectory scratch) {
        AtomicInteger count = new AtomicInteger();
        ExecutorService threads = Executors.newCachedThreadPool(runnable -> {
            Thread thread = new Thread(runnable, "docmirror-writer-" + container + "-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
        return new DuckDbWriters(container, scratch, threads);
    }

    /** The memory the Arrow batches of one data file are made in; close it once its write is done. */
    synchronized BufferAllocator newAllocator(String file) {
        start();
        return allocator.newChildAllocator(file, 0, Long.MAX_VALUE);
    }

    private void start() {
        if (duckDb != null) {
            return;
        }
        try {
            DuckDBConnection started = (DuckDBConnection) DriverManager.getConnection("jdbc:duckdb:");
            try (Statement statement = started.createStatement()) {
                statement.execute("SET threads = 1");
                statement.execute("SET preserve_insertion_order = true");
                statement.execute("SET memory_limit = " + literal(MEMORY_LIMIT));
                statement.execute("SET temp_directory = " + literal(scratch.spill().toString()));
            } catch (SQLException e) {
                started.close();
                throw e;
            }
            duckDb = started;
        } catch (SQLException e) {
            throw new MirrorException(MirrorErrorCode.IO_FAILURE,
                    "Cannot start the DuckDB that writes the data files of " + container, e);
        }
        allocator = new RootAllocator();
    }

    /** A new local file for DuckDB to write a data file of {@code table} into. */
    Path localFile(Table table) {
        return DuckDbParquet.localFile(scratch, table);
    }

    /** A connection of a write's own to the started DuckDB. */
    private synchronized DuckDBConnection connect() throws SQLException {
        start();
        return (DuckDBConnection) duckDb.duplicate();
    }

    /**
     * Starts writing the rows {@code rows} streams (its batches made in {@code memory}) to {@code file} with
     * {@code copyOptions} ({@link DuckDbParquet#copyOptions}); done when the stream has ended and the file is written.
     * The stream is closed when DuckDB is done with it.
     */
    CompletableFuture<Void> write(ArrowReader rows, BufferAllocator memory, Path file, String copyOptions) {
        return CompletableFuture.runAsync(() -> {
            // A connection of its own, closed before the stream and its memory: DuckDB holds on to the last Arrow
            // batch it imported until then.
            try (ArrowArrayStream stream = ArrowArrayStream.allocateNew(memory)) {
                Data.exportArrayStream(memory, rows, stream);
                try (DuckDBConnection connection = connect();
                        Statement statement = connection.createStatement()) {
                    connection.registerArrowStream("flattened_rows", stream);
                    statement.execute("COPY (SELECT * FROM flattened_rows) TO " + literal(file.toString()) + " "
                            + copyOptions);
                }
            } catch (SQLException e) {
                // No code: DuckDB's error may be a full disk or a row the vectors could not hold (a bug), alike.
                throw new IllegalStateException(e.getMessage(), e);
            }
        }, threads);
    }

    /** Closes DuckDB once every write has ended (every file was finished or closed). */
    @Override
    public void close() {
        threads.shutdown();
        try {
            if (!threads.awaitTermination(1, TimeUnit.MINUTES)) {
                throw new IllegalStateException("The DuckDB writes of data files did not end within a minute");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new MirrorException(MirrorErrorCode.INTERRUPTED,
                    "Interrupted while waiting for the DuckDB writes of data files", e);
        } finally {
            closeStarted();
        }
    }

    private synchronized void closeStarted() {
        if (duckDb == null) {
            return;
        }
        try {
            duckDb.close();
        } catch (SQLException e) {
            throw new MirrorException(MirrorErrorCode.IO_FAILURE, "Cannot close the DuckDB that writes data files", e);
        } finally {
            allocator.close();
        }
    }
}
