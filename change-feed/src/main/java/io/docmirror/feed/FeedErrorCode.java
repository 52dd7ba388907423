package io.docmirror.feed;

import io.docmirror.store.StoreErrorCode;
import io.docmirror.store.StoreException;

/**
 * Why following a change feed (publishing it to Kafka, deriving documents from it) failed, and whether trying again
 * may succeed without anyone doing anything. A Kafka publisher that died of a retriable failure is started again
 * after a pause; one that died of any other stays stopped and says why.
 */
public enum FeedErrorCode {
    /** The store does not answer for now (it restarts, say). */
    STORE_UNAVAILABLE(true),
    /** The Kafka broker does not answer, or a transaction failed in a way that publishing again may mend. */
    BROKER_UNAVAILABLE(true),
    /** The container is gone (deleted, or no longer mirrored); one created again under its name is followed anew. */
    CONTAINER_GONE(true),
    /** Other writers changed the same target documents again and again; the next attempt may get through. */
    WRITE_CONFLICT(true),
    /** The log no longer holds the changes after the feed's position: only a new start (a backfill) mends it. */
    POSITION_LOST(false),
    /** The store refused a read or a write as asked (a bad request, a token of another container). */
    STORE_REFUSED(false),
    /** Another publisher of the container took over (the same transactional id): this one stops for good. */
    PUBLISHER_FENCED(false),
    /** Anything else: an error with no code, most likely a bug; its message and cause tell more. */
    INTERNAL_ERROR(false);

    private final boolean retriable;

    FeedErrorCode(boolean retriable) {
        this.retriable = retriable;
    }

    /** Whether trying again may succeed without anyone acting: the cause is transient. */
    public boolean retriable() {
        return retriable;
    }

    /**
     * The code of any failure of a feed's follower: a {@link FeedException}'s own, and for the store's and the change
     * feed's failures, the one that says the same ({@code UNAVAILABLE} is {@link #STORE_UNAVAILABLE}, {@code GONE}
     * {@link #POSITION_LOST}, {@code NOT_FOUND} {@link #CONTAINER_GONE}).
     */
    public static FeedErrorCode of(Throwable failure) {
        if (failure instanceof FeedException feed) {
            return feed.code();
        }
        if (failure instanceof ChangeFeedException feed) {
            return of(feed.code());
        }
        if (failure instanceof StoreException store) {
            return of(store.code());
        }
        return INTERNAL_ERROR;
    }

    /** The code of a store's answer that was not a success ({@code status} is its HTTP status). */
    public static FeedErrorCode ofStoreStatus(int status) {
        return of(StoreErrorCode.fromHttpStatus(status));
    }

    private static FeedErrorCode of(StoreErrorCode code) {
        return switch (code) {
            case UNAVAILABLE -> STORE_UNAVAILABLE;
            case GONE -> POSITION_LOST;
            case NOT_FOUND -> CONTAINER_GONE;
            case CONFLICT, PRECONDITION_FAILED -> WRITE_CONFLICT;
            case INTERNAL_ERROR -> INTERNAL_ERROR;
            default -> STORE_REFUSED;
        };
    }
}
