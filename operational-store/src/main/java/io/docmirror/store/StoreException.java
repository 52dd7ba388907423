package io.docmirror.store;

import static java.util.Objects.requireNonNull;

/**
 * A store operation that failed. The code says why (and which HTTP status the API answers with); the message names
 * the container, the item and the rule that was broken. When a store operation throws, nothing was changed.
 */
public class StoreException extends RuntimeException {
    private final StoreErrorCode code;

    public StoreException(StoreErrorCode code, String message) {
        super(message);
        this.code = requireNonNull(code, "code is null");
    }

    public StoreException(StoreErrorCode code, String message, Throwable cause) {
        super(message, cause);
        this.code = requireNonNull(code, "code is null");
    }

    public StoreErrorCode code() {
        return code;
    }

    public int httpStatus() {
        return code.httpStatus();
    }

    /**
     * Transient failures (the storage engine is busy, the server unreachable or holding all the snapshots it may) may
     * succeed when retried.
     */
    public boolean isRetriable() {
        return code == StoreErrorCode.UNAVAILABLE || code == StoreErrorCode.TOO_MANY_REQUESTS;
    }
}
