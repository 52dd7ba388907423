package io.docmirror.feed;

import io.docmirror.store.StoreErrorCode;

import static java.util.Objects.requireNonNull;

/**
 * A change feed cannot be read as asked: an unknown container or feed range, a token for another container, or a
 * position the log no longer holds. The message names the feed range and, for a lost position, the oldest one left;
 * the code says which ({@code NOT_FOUND}, {@code BAD_REQUEST}, {@code GONE}), as the HTTP API answers it.
 */
public final class ChangeFeedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final StoreErrorCode code;

    public ChangeFeedException(StoreErrorCode code, String message) {
        super(message);
        this.code = requireNonNull(code, "code is null");
    }

    public ChangeFeedException(StoreErrorCode code, String message, Throwable cause) {
        super(message, cause);
        this.code = requireNonNull(code, "code is null");
    }

    public StoreErrorCode code() {
        return code;
    }
}
