package io.docmirror.mirror.iceberg;

import io.docmirror.mirror.MirrorErrorCode;
import io.docmirror.mirror.MirrorException;
import org.apache.iceberg.DataFile;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * A data file of a table being written: its rows go in in order, each at the next position, and finishing it gives
 * what a commit adds to the table. Iceberg's records are written by {@link DataFileWriter}, the flattener's rows by
 * {@link DuckDbFileWriter}.
 */
interface OpenDataFile extends AutoCloseable {
    /** Where the file is written. */
    String location();

    /** Closes the file, durably; what a commit adds to the table. */
    DataFile finish();

    /** Closes the file for a batch that is abandoned, once what was handed over is written. */
    @Override
    void close();

    /** Waits for the work writing the file at {@code location} (on other threads), throwing its failure. */
    static void await(CompletableFuture<Void> writing, String location) {
        try {
            writing.join();
        } catch (CompletionException e) {
            throw new MirrorException(MirrorErrorCode.of(e.getCause()),
                    "Cannot write the data file " + location + ": " + e.getCause().getMessage(),
                    e.getCause());
        }
    }
}
