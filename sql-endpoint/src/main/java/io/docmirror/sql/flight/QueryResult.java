package io.docmirror.sql.flight;

import io.docmirror.sql.ArrowExport;
import org.apache.arrow.flight.CallStatus;
import org.apache.arrow.flight.FlightProducer.ServerStreamListener;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.types.pojo.Schema;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A query's result as it streams to a client that fetched its ticket: DuckDB's Arrow batches, sent under the
 * result's schema with each column's Flight SQL metadata ({@link ColumnMetadata}).
 */
final class QueryResult implements AutoCloseable {
    private final List<AutoCloseable> owned;
    private final ArrowReader reader;
    private final Schema schema;
    private long bytesSent;

    private QueryResult(List<AutoCloseable> owned, ArrowReader reader, Schema schema) {
        this.owned = owned;
        this.reader = reader;
        this.schema = schema;
    }

    /**
     * @param owned what closes with the result, after the result set (its statement, its connection), in order
     */
    static QueryResult of(ResultSet resultSet, BufferAllocator allocator, long batchRows, AutoCloseable... owned)
            throws SQLException {
        List<AutoCloseable> closing = new ArrayList<>();
        closing.add(resultSet);
        closing.addAll(List.of(owned));
        try {
            ArrowReader reader = ArrowExport.of(resultSet, allocator, batchRows);
            closing.add(0, reader);
            return new QueryResult(closing, reader,
                    ColumnMetadata.ofResult(reader.getVectorSchemaRoot().getSchema(), resultSet.getMetaData()));
        } catch (SQLException | IOException | RuntimeException e) {
            SQLException failure = e instanceof SQLException sqlException ? sqlException
                    : new SQLException("Cannot read the query's result as Arrow: " + e.getMessage(), e);
            Resources.closeAll(closing, failure);
            throw failure;
        }
    }

    /**
     * Sends every batch to {@code listener}, waiting for the client when it reads slower than we send, up to
     * {@code idleTimeout} for each batch.
     *
     * @return false when the client cancelled
     */
    boolean streamTo(ServerStreamListener listener, Duration idleTimeout) throws IOException {
        VectorSchemaRoot read = reader.getVectorSchemaRoot();
        // The reader's own vectors, under the schema with metadata: sending copies nothing.
        VectorSchemaRoot sent = new VectorSchemaRoot(schema.getFields(), read.getFieldVectors(), 0);
        listener.start(sent);
        while (reader.loadNextBatch()) {
            if (!awaitClient(listener, idleTimeout)) {
                return false;
            }
            sent.setRowCount(read.getRowCount());
            listener.putNext();
            bytesSent += read.getFieldVectors().stream().mapToLong(FieldVector::getBufferSize).sum();
        }
        listener.completed();
        return true;
    }

    /** The Arrow buffers of the batches sent so far. */
    long bytesSent() {
        return bytesSent;
    }

    /**
     * Waits while the client's receive window is full, so a slow client holds back the reading of the result
     * instead of the whole result piling up in send buffers.
     *
     * @return false when the client cancelled
     */
    private static boolean awaitClient(ServerStreamListener listener, Duration idleTimeout)
            throws InterruptedIOException {
        long deadline = System.nanoTime() + idleTimeout.toNanos();
        while (!listener.isReady()) {
            if (listener.isCancelled()) {
                return false;
            }
            if (System.nanoTime() > deadline) {
                throw CallStatus.TIMED_OUT.withDescription("The client took no rows for " + idleTimeout.toMillis()
                        + " ms (" + FlightConfig.STREAM_IDLE_TIMEOUT_MS.key() + "); the result is dropped")
                        .toRuntimeException();
            }
            try {
                // Polled: gRPC's on-ready callback was seen to go missing, which stalled a stream for good.
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("Interrupted while waiting for a Flight SQL client");
            }
        }
        return !listener.isCancelled();
    }

    @Override
    public void close() {
        Resources.closeAll(owned, null);
    }
}
