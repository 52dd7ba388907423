package io.docmirror.store.bulk;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonGenerator;
import io.docmirror.store.BulkOptions;
import io.docmirror.store.BulkResult;
import io.docmirror.store.StoreClient;
import io.docmirror.store.StoreJson;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * Loads a JSON Lines file into a container in large atomic batches. A bad line (not JSON, against a store rule, a
 * duplicate id) is written to the rejects output with its line number and reason, and the good lines still load;
 * with {@code failFast} the import stops at the first bad line, and only the lines before it are stored.
 * A UTF-8 byte order mark at the start of the file is skipped; empty lines are ignored.
 */
public final class JsonLinesImporter {
    private final StoreClient store;
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

    public JsonLinesImporter(StoreClient store, Options options) {
        this.store = requireNonNull(store, "store is null");
        this.options = requireNonNull(options, "options is null");
    }

    /**
     * @param rejects where each rejected line goes, as one JSON object per line:
     *        {@code {"line":12,"status":409,"reason":"…","document":"…"}}
     */
    public Summary importFile(Path file, OutputStream rejects, Progress progress) throws IOException {
        try (InputStream in = Files.newInputStream(file)) {
            return importStream(in, rejects, progress);
        }
    }

    public Summary importStream(InputStream in, OutputStream rejects, Progress progress) throws IOException {
        long start = System.nanoTime();
        Batch batch = new Batch();
        Counters counters = new Counters();
        JsonLinesReader reader = new JsonLinesReader(in);
        byte[] line;
        while ((line = reader.next()) != null) {
            counters.lines = reader.lineNumber();
            if (isBlank(line)) {
                continue;
            }
            try {
                batch.add(options.ids().apply(line, reader.lineNumber()), line, reader.lineNumber());
            } catch (IllegalArgumentException e) {
                reject(rejects, counters, new Rejection(reader.lineNumber(), 400, "Line " + reader.lineNumber() + " "
                        + e.getMessage()), line);
                if (options.failFast()) {
                    break;
                }
                continue;
            }
            if (batch.size() >= options.batchDocuments() || batch.bytes >= options.batchBytes()) {
                if (!flush(batch, rejects, counters)) {
                    break;
                }
                progress.advance(reader.bytesRead(), counters.loaded);
            }
        }
        if (!counters.stoppedEarly) {
            flush(batch, rejects, counters);
        }
        progress.advance(reader.bytesRead(), counters.loaded);
        rejects.flush();
        return new Summary(counters.lines, counters.loaded, counters.rejected, reader.bytesRead(),
                Duration.ofNanos(System.nanoTime() - start), counters.stoppedEarly, List.copyOf(counters.first));
    }

    /** Writes the batch; returns false when the import must stop (fail-fast and a document failed). */
    private boolean flush(Batch batch, OutputStream rejects, Counters counters) throws IOException {
        if (batch.size() == 0) {
            return !counters.stoppedEarly;
        }
        BulkResult result = store.bulkWrite(options.container(), batch.documents,
                new BulkOptions(options.upsert(), options.failFast()));
        counters.loaded += result.written();
        for (BulkResult.Failure failure : result.failures()) {
            long lineNumber = batch.lineNumbers.get(failure.index());
            reject(rejects, counters, new Rejection(lineNumber, failure.status(),
                    "Line " + lineNumber + ": " + failure.message()), batch.lines.get(failure.index()));
        }
        batch.clear();
        return !counters.stoppedEarly;
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

    private static boolean isBlank(byte[] line) {
        for (byte b : line) {
            if (b != ' ' && b != '\t' && b != '\r') {
                return false;
            }
        }
        return true;
    }

    private static final class Counters {
        long lines;
        long loaded;
        long rejected;
        boolean stoppedEarly;
        final List<Rejection> first = new ArrayList<>();
    }

    private static final class Batch {
        final List<byte[]> documents = new ArrayList<>();
        final List<byte[]> lines = new ArrayList<>();
        final List<Long> lineNumbers = new ArrayList<>();
        long bytes;

        void add(byte[] document, byte[] line, long lineNumber) {
            documents.add(document);
            lines.add(line);
            lineNumbers.add(lineNumber);
            bytes += document.length;
        }

        int size() {
            return documents.size();
        }

        void clear() {
            documents.clear();
            lines.clear();
            lineNumbers.clear();
            bytes = 0;
        }
    }
}
