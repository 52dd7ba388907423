package io.docmirror.mirror.iceberg;

import io.docmirror.layout.DeletionVectors;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetReaders;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.parquet.Parquet;

import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * The live rows of one data file: each row the file's deletion vector leaves, with its position in the file (what a
 * deletion vector names it by) and the columns of a projection.
 */
final class LiveRows {
    /** Receives one live row. */
    @FunctionalInterface
    interface Sink {
        void accept(long position, Record row);
    }

    private LiveRows() {
    }

    /** The deletion vector of a scan task's data file (the mirror writes at most one a file); null when it has none. */
    static DeleteFile vectorOf(FileScanTask task) {
        return task.deletes().isEmpty() ? null : task.deletes().get(task.deletes().size() - 1);
    }

    /**
     * Hands the live rows of {@code dataFile}, read as {@code projection}, to {@code sink} in file order.
     *
     * @param vector the file's committed deletion vector; null when it has none
     */
    static void read(FileIO io, String dataFile, DeleteFile vector, Schema projection, Sink sink) {
        PositionDeleteIndex deleted = vector == null ? PositionDeleteIndex.empty() : DeletionVectors.read(io, vector);
        try (CloseableIterable<Record> records = Parquet.read(io.newInputFile(dataFile))
                .project(projection)
                .createReaderFunc(fileSchema -> GenericParquetReaders.buildReader(projection, fileSchema))
                .build()) {
            long position = 0;
            for (Record record : records) {
                if (!deleted.isDeleted(position)) {
                    sink.accept(position, record);
                }
                position++;
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read the data file " + dataFile, e);
        }
    }
}
