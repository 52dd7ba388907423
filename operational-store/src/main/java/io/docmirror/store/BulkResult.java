package io.docmirror.store;

import java.util.List;

/**
 * The outcome of a bulk write: documents are applied independently (a bad document fails alone) but committed
 * together in one atomic, durable write.
 *
 * @param written how many documents were stored
 * @param failures the documents that were not stored, by their position in the request
 */
public record BulkResult(int written, List<Failure> failures) {
    public BulkResult {
        failures = List.copyOf(failures);
    }

    public record Failure(int index, int status, String message) {
    }
}
