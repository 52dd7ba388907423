package io.docmirror.mirror.iceberg;

import io.docmirror.mirror.MirrorErrorCode;
import io.docmirror.mirror.MirrorException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads that encode rows into Parquet data files (column values, statistics, compression), one a core, while
 * the thread that flattens goes on: encoding is most of what writing a row costs. A data file's rows are encoded in
 * the order they were written, a chunk at a time; different files are encoded at the same time. At most
 * {@code chunksWaiting} chunks, of every file of the container together, wait to be encoded: a writer that hands over
 * one more waits, so the rows held stay bounded whatever the container's size and number of tables.
 */
final class EncoderThreads implements AutoCloseable {
    private final ExecutorService threads;
    private final Semaphore waiting;

    EncoderThreads(String container, int threads, int chunksWaiting) {
        AtomicInteger count = new AtomicInteger();
        this.threads = Executors.newFixedThreadPool(threads, runnable -> {
            Thread thread = new Thread(runnable, "docmirror-encoder-" + container + "-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
        this.waiting = new Semaphore(chunksWaiting);
    }

    /** One thread a core. */
    static EncoderThreads forCores(String container) {
        int cores = Runtime.getRuntime().availableProcessors();
        return new EncoderThreads(container, cores, 8 * cores);
    }

    /**
     * Encodes a chunk once {@code previous} (the file's chunks before it) is done, first waiting while too many chunks
     * wait. The result fails as {@code previous} did, without running {@code encode}, once a chunk failed.
     *
     * @throws MirrorException with {@code INTERRUPTED} when interrupted while waiting (the interrupt flag stays set)
     */
    CompletableFuture<Void> after(CompletableFuture<Void> previous, Runnable encode) {
        try {
            waiting.acquire();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new MirrorException(MirrorErrorCode.INTERRUPTED,
                    "Interrupted while waiting to hand rows to the Parquet encoders", e);
        }
        CompletableFuture<Void> encoded = previous.thenRunAsync(encode, threads);
        encoded.whenComplete((ignored, failure) -> waiting.release());
        return encoded;
    }

    /** Stops the threads once what was handed over is encoded (or failed): every file was finished or closed. */
    @Override
    public void close() {
        threads.shutdown();
        try {
            if (!threads.awaitTermination(1, TimeUnit.MINUTES)) {
                throw new IllegalStateException("The Parquet encoder threads did not stop within a minute");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new MirrorException(MirrorErrorCode.INTERRUPTED,
                    "Interrupted while stopping the Parquet encoder threads", e);
        }
    }
}
