package io.docmirror.store;

/**
 * Why a store operation failed, with the HTTP status Cosmos DB gives for it.
 */
public enum StoreErrorCode {
    BAD_REQUEST(400),
    UNAUTHORIZED(401),
    FORBIDDEN(403),
    NOT_FOUND(404),
    CONFLICT(409),
    PRECONDITION_FAILED(412),
    TOO_LARGE(413),
    /** A change-log position older than the log's retention: the events after it are gone. */
    GONE(410),
    /** A transactional batch operation that was not run because another operation of the batch failed. */
    FAILED_DEPENDENCY(424),
    /** The server holds as many of something (snapshots) as it may: retry once one is released. */
    TOO_MANY_REQUESTS(429),
    INTERNAL_ERROR(500),
    UNAVAILABLE(503);

    private final int httpStatus;

    StoreErrorCode(int httpStatus) {
        this.httpStatus = httpStatus;
    }

    public int httpStatus() {
        return httpStatus;
    }

    public static StoreErrorCode fromHttpStatus(int status) {
        for (StoreErrorCode code : values()) {
            if (code.httpStatus == status) {
                return code;
            }
        }
        return status >= 500 ? INTERNAL_ERROR : BAD_REQUEST;
    }
}
