package io.docmirror.mirror.source;

import io.docmirror.feed.ChangeFeedException;
import io.docmirror.mirror.MirrorException;
import io.docmirror.mirror.source.Checkpoint;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.changelog.ChangeEvent;

import java.util.List;

/**
 * Where a container's mirror reads its changes from: the store's own change feed ({@link EmbeddedFeedSource}) or the
 * container's Kafka topic ({@link KafkaTopicSource}). A source opens at a commit's checkpoint, returns every change
 * after it exactly once, in order per item, and tells the checkpoint to commit with the changes it returned.
 */
public interface ChangeSource extends AutoCloseable {
    /** Opens a container's source at a committed checkpoint. */
    @FunctionalInterface
    interface Opener {
        /** @throws MirrorException with {@code SOURCE_UNAVAILABLE} when the source cannot be reached for now */
        ChangeSource open(ContainerProperties container, Checkpoint from);
    }

    /**
     * Changes read by one call.
     *
     * @param caughtUp true when the source had nothing more committed at the time of the read
     */
    record Changes(List<ChangeEvent> events, boolean caughtUp) {
        public Changes {
            events = List.copyOf(events);
        }
    }

    /**
     * The next changes, at most {@code maxEvents}.
     *
     * @throws ChangeFeedException with {@code GONE} when changes after the checkpoint are no longer in the source
     * @throws MirrorException with {@code SOURCE_UNAVAILABLE} when the source cannot be read for now (an unreachable
     *     store or broker): the caller reopens it at its last committed checkpoint later
     */
    Changes read(int maxEvents);

    /** The checkpoint to commit with every change returned so far. */
    Checkpoint checkpoint();

    /**
     * Whether a checkpoint that moved on without changes is committed on its own, once the source is caught up: for a
     * source whose position says more than its changes do (a Cosmos DB account's load ends with a read that finds
     * nothing, and only then does the mirror hold the container as of a position). Otherwise such a move waits for
     * the next change.
     */
    default boolean commitsPositionAlone() {
        return false;
    }

    /** What a user can do when changes the mirror needs are gone from this source (a sentence for an error). */
    String gapRemedy(String container);

    @Override
    void close();
}
