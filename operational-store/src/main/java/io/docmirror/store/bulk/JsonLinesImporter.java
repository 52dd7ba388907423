package io.docmirror.store.bulk;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonGenerator;
import io.docmirror.store.BulkOptions;
import io.docmirror.store.BulkResult;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.QueuedBulk;
import io.docmirror.store.ValidatedBulk;
import io.docmirror.store.StoreJson;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

import static java.util.Objects.requireNonNull;

/**
 * Loads a JSON Lines file into a container in large atomic batches. A bad line (not JSON, against a store rule, a
 * duplicate id) is written to the rejects output with its line number and reason, and the good lines still load;
 * with {@code failFast} the import stops at the first bad line, and only the lines before it are stored.
 * A UTF-8 byte order mark at the start of the file is skipped; empty lines are ignored.
 */
public final class JsonLinesImporter {
    private final EmbeddedStore store;
    private final Options options;

    /**
     * @param batchDocuments documents per atomic write
     * @param batchBytes bytes per atomic write (a batch closes at whichever limit comes first)
     */
    public record Options(String container, IdAssignment ids, boolean upsert, boolean failFast, int batchDocuments,
            int batchBytes) {
        public static final int DEFAULT_BATCH_DOCUMENTS = 5000;
        public static final int DEFAULT_BATCH_BYTES = 8 * 1024 * 1024;

        public Options {
            requireNonNull(container, "container is null");
            requireNonNull(ids, "ids is null");
            if (batchDocuments < 1 || batchBytes < 1) {
                throw new IllegalArgumentException("batch limits must be positive");
            }
        }

        public static Options defaults(String container) {
            return new Options(container, IdAssignment.AS_IS, false, false, DEFAULT_BATCH_DOCUMENTS, DEFAULT_BATCH_BYTES);
        }
    }

    /** Told after each batch how far the import has come. */
    @FunctionalInterface
    public interface Progress {
        Progress NONE = (bytes, documents) -> { };

        void advance(long bytesRead, long documentsLoaded);
    }

    public record Rejection(long line, int status, String reason) {
    }

    /**
     * @param firstRejections up to ten rejected lines, for the summary
     */
    public record Summary(long lines, long loaded, long rejected, long bytes, Duration elapsed, boolean stoppedEarly,
            List<Rejection> firstRejections) {
        public double documentsPerSecond() {
            return loaded / Math.max(elapsed.toNanos() / 1e9, 1e-9);
        }

        public double megabytesPerSecond() {
            return bytes / 1e6 / Math.max(elapsed.toNanos() / 1e9, 1e-9);
        }
    }

    public JsonLinesImporter(EmbeddedStore store, Options options) {
        this.store = requireNonNull(store, "store is null");
        this.options = requireNonNull(options, "options is null");
    }

    /**
     * @param rejects where each rejected line goes, as one JSON object per line, in line order:
     *        {@code {"line":12,"status":409,"reason":"…","document":"…"}}
     */
    public Summary importFile(Path file, OutputStream rejects, Progress progress) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            return importStream(in, rejects, progress);
        }
    }

    /**
     * Imports in a pipeline of three batches, so that the store's synced write of one batch overlaps the work on the
     * next ones: a reading thread reads and checks batch N+2 ({@link EmbeddedStore#validateBulk}) while this thread
     * writes batch N+1 into a transaction and queues it ({@link EmbeddedStore#queueBulk}), and a syncing thread waits
     * for batch N's group commit. Only this thread queues, so batches get their LSNs in file order, as when they were
     * written one after the other; a batch is reported (rejects, progress) only once it is durable.
     */
    public Summary importStream(InputStream in, OutputStream rejects, Progress progress) throws IOException {
        long start = System.nanoTime();
        LineBatches batches = new LineBatches(new JsonLinesReader(in), options);
        Counters counters = new Counters();
        BulkOptions bulkOptions = new BulkOptions(options.upsert(), options.failFast());
        ExecutorService reading = Executors.newSingleThreadExecutor(named("import-read"));
        ExecutorService syncing = Executors.newSingleThreadExecutor(named("import-sync"));
        Queued previous = null;
        try {
            Future<Checked> next = reading.submit(() -> check(batches.next()));
            while (next != null) {
                Checked batch = await(next);
                next = batch.lines().last() ? null : reading.submit(() -> check(batches.next()));
                Queued current = queue(batch, bulkOptions, syncing);
                Queued written = previous;
                previous = current;
                if (written != null) {
                    finish(written, rejects, counters, progress);
                }
                if (options.failFast() && current.refusesAny()) {
                    // The rest is not imported; the reading thread's batch is left unused.
                    next = null;
                }
            }
            Queued last = previous;
            previous = null;
            finish(last, rejects, counters, progress);
        } catch (IOException | RuntimeException e) {
            if (previous != null) {
                // Report the batch queued before the failure: it may well be stored.
                try {
                    finish(previous, rejects, counters, progress);
                } catch (IOException | RuntimeException again) {
                    e.addSuppressed(again);
                }
            }
            throw e;
        } finally {
            // The reading thread may still be reading the stream, which the caller closes once this returns.
            stop(reading);
            stop(syncing);
        }
        rejects.flush();
        return new Summary(counters.lines, counters.loaded, counters.rejected, counters.bytes,
                Duration.ofNanos(System.nanoTime() - start), counters.stoppedEarly, List.copyOf(counters.first));
    }

    /** A batch of lines with its documents checked by the store (null when it has none). */
    private record Checked(LineBatches.Batch lines, ValidatedBulk documents) {
    }

    /** A batch queued for the group commit: what the store made of it, and its durability to come. */
    private record Queued(LineBatches.Batch lines, BulkResult outcome, Future<BulkResult> durable) {
        boolean refusesAny() {
            return !lines.refused().isEmpty() || !outcome.failures().isEmpty();
        }
    }

    private Checked check(LineBatches.Batch batch) {
        return new Checked(batch, batch.documents().isEmpty() ? null
                : store.validateBulk(options.container(), batch.documents()));
    }

    private Queued queue(Checked batch, BulkOptions bulkOptions, ExecutorService syncing) {
        if (batch.documents() == null) {
            BulkResult nothing = new BulkResult(0, List.of());
            return new Queued(batch.lines(), nothing, CompletableFuture.completedFuture(nothing));
        }
        QueuedBulk queued = store.queueBulk(batch.documents(), bulkOptions);
        return new Queued(batch.lines(), queued.outcome(), syncing.submit(queued::awaitDurable));
    }

    /** Waits until the batch is durable, then reports its rejected lines in line order, and the progress. */
    private void finish(Queued batch, OutputStream rejects, Counters counters, Progress progress) throws IOException {
        BulkResult result = await(batch.durable());
        counters.loaded += result.written();
        List<LineBatches.Refused> refused = new ArrayList<>(batch.lines().refused());
        for (BulkResult.Failure failure : result.failures()) {
            long lineNumber = batch.lines().lineNumbers().get(failure.index());
            refused.add(new LineBatches.Refused(new Rejection(lineNumber, failure.status(),
                    "Line " + lineNumber + ": " + failure.message()), batch.lines().lines().get(failure.index())));
        }
        refused.sort(Comparator.comparingLong(line -> line.rejection().line()));
        for (LineBatches.Refused line : refused) {
            reject(rejects, counters, line.rejection(), line.line());
            if (options.failFast()) {
                break; // the first bad line; the import stopped there
            }
        }
        counters.lines = batch.lines().lastLine();
        counters.bytes = batch.lines().bytesRead();
        progress.advance(counters.bytes, counters.loaded);
    }

    private static <T> T await(Future<T> future) throws IOException {
        try {
            return future.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("Import interrupted");
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof IOException io) {
                throw io;
            }
            if (cause instanceof RuntimeException runtime) {
                throw runtime;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            throw new IllegalStateException(cause);
        }
    }

    /** Lets the thread finish what it is doing (reading a batch, waiting for a commit) and waits for it. */
    private static void stop(ExecutorService executor) {
        executor.shutdown();
        boolean interrupted = false;
        while (true) {
            try {
                if (executor.awaitTermination(1, TimeUnit.MINUTES)) {
                    break;
                }
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private static ThreadFactory named(String name) {
        return task -> {
            Thread thread = new Thread(task, name);
            thread.setDaemon(true);
            return thread;
        };
    }

    private void reject(OutputStream rejects, Counters counters, Rejection rejection, byte[] line) throws IOException {
        counters.rejected++;
        if (counters.first.size() < 10) {
            counters.first.add(rejection);
        }
        if (options.failFast()) {
            counters.stoppedEarly = true;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (JsonGenerator generator = StoreJson.mapper().getFactory().createGenerator(out, JsonEncoding.UTF8)) {
            generator.writeStartObject();
            generator.writeNumberField("line", rejection.line());
            generator.writeNumberField("status", rejection.status());
            generator.writeStringField("reason", rejection.reason());
            // Invalid UTF-8 in the line shows as U+FFFD here; the reason says where it was.
            generator.writeStringField("document", new String(line, StandardCharsets.UTF_8));
            generator.writeEndObject();
        }
        out.write('\n');
        rejects.write(out.toByteArray());
    }

    private static final class Counters {
        long lines;
        long loaded;
        long rejected;
        long bytes;
        boolean stoppedEarly;
        final List<Rejection> first = new ArrayList<>();
    }
}
