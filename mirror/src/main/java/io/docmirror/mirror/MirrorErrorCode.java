package io.docmirror.mirror;

import io.docmirror.feed.ChangeFeedException;
import io.docmirror.store.StoreException;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.CommitStateUnknownException;

import java.io.UncheckedIOException;

/**
 * Why mirroring a container failed, and whether trying again may succeed without anyone doing anything. The daemon
 * tries every container again after a pause either way (an operator may mend the cause meanwhile); it reports a
 * retriable failure as a transient one (an outage of the source, a batch that failed) and any other as the container
 * failing ({@code docmirror_mirror_failing}), which needs someone to act on its message.
 */
public enum MirrorErrorCode {
    /** The change source (the store's HTTP API, a Kafka broker, a Cosmos DB account) does not answer for now. */
    SOURCE_UNAVAILABLE(true),
    /** Reading or writing a file failed (a full disk, say); the batch was not committed. */
    IO_FAILURE(true),
    /** The catalog refused a batch because a table moved since the batch read it; nothing of the batch landed. */
    COMMIT_CONFLICT(true),
    /**
     * A catalog commit whose outcome is unknown, or tables out of step with their catalog: they are opened again from
     * what the catalog holds.
     */
    COMMIT_UNKNOWN(true),
    /** A limit of the mirror is reached (the data files it tracks) until its upkeep frees room. */
    LIMIT_REACHED(true),
    /** The work was stopped by an interrupt (the process stopping); the next start goes on where it stopped. */
    INTERRUPTED(true),
    /** The change source refused the read: a container or feed range it does not know, a token it does not take. */
    SOURCE_REFUSED(false),
    /** The change source no longer holds the changes after the mirror's position: only a new backfill mends it. */
    POSITION_LOST(false),
    /** The container's backfill has not finished: run it again first. */
    BACKFILL_UNFINISHED(false),
    /** Another process mirrors the container (it holds the writer lock). */
    MIRROR_LOCKED(false),
    /** The mirror is asked to do what its configuration or state refuses (another change source than its own). */
    REFUSED_CONFIGURATION(false),
    /**
     * The tables, the document index or a checkpoint hold what the mirror cannot read: damaged, or not written by
     * docmirror's mirror, or in a layout it cannot go on from without a rebuild or a backfill.
     */
    UNREADABLE_MIRROR(false),
    /** Anything else: an error the mirror has no code for, most likely a bug; its message and cause tell more. */
    INTERNAL_ERROR(false);

    private final boolean retriable;

    MirrorErrorCode(boolean retriable) {
        this.retriable = retriable;
    }

    /** Whether trying again may succeed without anyone acting: the cause is transient. */
    public boolean retriable() {
        return retriable;
    }

    /**
     * The code of any failure that reaches the mirror: a {@link MirrorException}'s own, and for the failures of the
     * parts it stands on, the one that says the same: a store or change feed that does not answer is
     * {@link #SOURCE_UNAVAILABLE}, a lost feed position {@link #POSITION_LOST}, an I/O error {@link #IO_FAILURE}, a
     * catalog that refused a commit {@link #COMMIT_CONFLICT}.
     */
    public static MirrorErrorCode of(Throwable failure) {
        if (failure instanceof MirrorException mirror) {
            return mirror.code();
        }
        if (failure instanceof StoreException store) {
            return store.isRetriable() ? SOURCE_UNAVAILABLE : SOURCE_REFUSED;
        }
        if (failure instanceof ChangeFeedException feed) {
            return switch (feed.code()) {
                case GONE -> POSITION_LOST;
                case UNAVAILABLE -> SOURCE_UNAVAILABLE;
                default -> SOURCE_REFUSED;
            };
        }
        if (failure instanceof UncheckedIOException) {
            return IO_FAILURE;
        }
        if (failure instanceof CommitFailedException) {
            return COMMIT_CONFLICT;
        }
        if (failure instanceof CommitStateUnknownException) {
            return COMMIT_UNKNOWN;
        }
        return INTERNAL_ERROR;
    }
}
