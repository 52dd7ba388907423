package io.docmirror.store.bulk;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Cuts a JSON Lines stream into the batches of an import: each line gets its id ({@link IdAssignment}); a line that
 * cannot get one is refused here, before the store sees it. Blank lines are skipped.
 */
final class LineBatches {
    /** A line refused, with its text for the rejects output. */
    record Refused(JsonLinesImporter.Rejection rejection, byte[] line) {
    }

    /**
     * One batch of lines.
     *
     * @param documents the lines with their ids, to store in one atomic write
     * @param lines the lines as read, for the rejects output, by the documents' positions
     * @param lineNumbers the documents' line numbers, by their positions
     * @param refused lines refused before the store saw them, in line order
     * @param lastLine the number of the last line read into the batch
     * @param bytesRead how far into the stream the batch ends
     * @param last whether the stream ends with this batch, or (with fail-fast) a refused line ends the import
     */
    record Batch(List<byte[]> documents, List<byte[]> lines, List<Long> lineNumbers, List<Refused> refused,
            long lastLine, long bytesRead, boolean last) {
    }

    private final JsonLinesReader reader;
    private final JsonLinesImporter.Options options;

    LineBatches(JsonLinesReader reader, JsonLinesImporter.Options options) {
        this.reader = reader;
        this.options = options;
    }

    /** The next batch: full, or the last one (possibly empty). */
    Batch next() throws IOException {
        List<byte[]> documents = new ArrayList<>();
        List<byte[]> lines = new ArrayList<>();
        List<Long> lineNumbers = new ArrayList<>();
        List<Refused> refused = new ArrayList<>();
        long bytes = 0;
        byte[] line;
        while ((line = reader.next()) != null) {
            if (isBlank(line)) {
                continue;
            }
            long lineNumber = reader.lineNumber();
            byte[] document;
            try {
                document = options.ids().apply(line, lineNumber);
            } catch (IllegalArgumentException e) {
                refused.add(new Refused(new JsonLinesImporter.Rejection(lineNumber, 400,
                        "Line " + lineNumber + " " + e.getMessage()), line));
                if (options.failFast()) {
                    return new Batch(documents, lines, lineNumbers, refused, reader.lineNumber(), reader.bytesRead(),
                            true);
                }
                continue;
            }
            documents.add(document);
            lines.add(line);
            lineNumbers.add(lineNumber);
            bytes += document.length;
            if (documents.size() >= options.batchDocuments() || bytes >= options.batchBytes()) {
                return new Batch(documents, lines, lineNumbers, refused, reader.lineNumber(), reader.bytesRead(),
                        false);
            }
        }
        return new Batch(documents, lines, lineNumbers, refused, reader.lineNumber(), reader.bytesRead(), true);
    }

    private static boolean isBlank(byte[] line) {
        for (byte b : line) {
            if (b != ' ' && b != '\t' && b != '\r') {
                return false;
            }
        }
        return true;
    }
}
