package io.docmirror.store;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;

import java.util.List;

/**
 * The outcome of a transactional batch: one result per operation, in order. When an operation fails, nothing of the
 * batch is applied; that operation carries its own status and message, and every other operation 424.
 */
public record BatchResult(List<OperationResult> results) {
    public BatchResult {
        results = List.copyOf(results);
    }

    @JsonIgnore
    public boolean isSuccess() {
        return results.stream().allMatch(result -> result.status() < 300);
    }

    /** The batch's status: 200 when every operation succeeded, otherwise the failing operation's status. */
    @JsonIgnore
    public int status() {
        return results.stream()
                .filter(result -> result.status() >= 300 && result.status() != StoreErrorCode.FAILED_DEPENDENCY.httpStatus())
                .mapToInt(OperationResult::status)
                .findFirst()
                .orElse(isSuccess() ? 200 : StoreErrorCode.FAILED_DEPENDENCY.httpStatus());
    }

    /**
     * @param item the item after a write or the item read; absent for delete and for failures
     * @param message why the operation failed; absent on success
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record OperationResult(int status, String etag, Item item, String message) {
    }
}
