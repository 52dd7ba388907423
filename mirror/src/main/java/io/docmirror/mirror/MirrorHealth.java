package io.docmirror.mirror;

import java.time.Duration;

/**
 * How one container fares in a running {@link FeedMirror}, for the daemon's metrics: whether its change source
 * answers, and whether an error keeps its mirror from going on. Either way the mirror stays at its last committed
 * version and the daemon tries again after a pause, while the other containers go on.
 *
 * @param sourceUnreachableSince when the current outage of the container's change source (the store's HTTP API, a
 *     Kafka broker) began, epoch milliseconds; 0 while it answers
 * @param sourceFailures reads of the change source that failed since the mirror started, each retried
 * @param failure why the container cannot be mirrored for now (a lost feed position, an unfinished backfill, a mirror
 *     that another process holds); {@code null} when nothing but an outage stops it
 * @param failureCode the code of that failure, one that is not retriable ({@code POSITION_LOST}, say); {@code null}
 *     with it
 */
public record MirrorHealth(String container, long sourceUnreachableSince, long sourceFailures,
        MirrorErrorCode failureCode, String failure) {
    static MirrorHealth healthy(String container) {
        return new MirrorHealth(container, 0, 0, null, null);
    }

    /** For how long the change source has not answered, as of {@code nowMillis}; zero while it answers. */
    public Duration sourceUnreachableFor(long nowMillis) {
        return sourceUnreachableSince == 0 ? Duration.ZERO
                : Duration.ofMillis(Math.max(0, nowMillis - sourceUnreachableSince));
    }

    MirrorHealth withSourceFailure(long nowMillis) {
        return new MirrorHealth(container, sourceUnreachableSince == 0 ? nowMillis : sourceUnreachableSince,
                sourceFailures + 1, failureCode, failure);
    }

    MirrorHealth withSourceAnswering() {
        return new MirrorHealth(container, 0, sourceFailures, failureCode, failure);
    }

    MirrorHealth withFailure(MirrorErrorCode code, String reason) {
        return new MirrorHealth(container, sourceUnreachableSince, sourceFailures, code, reason);
    }
}
