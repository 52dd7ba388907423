package io.docmirror.mirror.source;

import io.docmirror.feed.ChangeFeedMode;
import io.docmirror.feed.ChangeFeedPage;
import io.docmirror.feed.ChangeFeedReader;
import io.docmirror.feed.StartFrom;
import io.docmirror.mirror.MirrorErrorCode;
import io.docmirror.mirror.MirrorException;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.StoreClient;
import io.docmirror.store.StoreException;

/**
 * A container's changes from the store's own change feed, all versions and deletes: of the store in this process, or
 * of a store served elsewhere ({@code HttpStoreClient}), which may not answer for a while.
 */
public final class EmbeddedFeedSource implements ChangeSource {
    private final String container;
    private final ChangeFeedReader reader;

    private EmbeddedFeedSource(String container, ChangeFeedReader reader) {
        this.container = container;
        this.reader = reader;
    }

    public static Opener opener(StoreClient store) {
        return (container, from) -> open(store, container, from);
    }

    /**
     * @throws MirrorException with {@code REFUSED_CONFIGURATION} when the mirror reads from Kafka or Cosmos DB: its
     *     continuation is where it switched to Kafka, and reading the feed from there would apply the Kafka changes a
     *     second time
     * @throws MirrorException with {@code SOURCE_UNAVAILABLE} when the store does not answer
     */
    public static EmbeddedFeedSource open(StoreClient store, ContainerProperties container, Checkpoint from) {
        if (from.isKafka()) {
            throw new MirrorException(MirrorErrorCode.REFUSED_CONFIGURATION, "Cannot mirror container "
                    + container.id() + " from the store's change feed: its mirror reads from Kafka (its checkpoint "
                    + "holds Kafka offsets " + from.kafkaOffsets()
                    + "); run the mirror with --source kafka, or run `docmirror backfill --container "
                    + container.id() + "` to start it again from the store");
        }
        if (from.isCosmos()) {
            throw new MirrorException(MirrorErrorCode.REFUSED_CONFIGURATION, "Cannot mirror container "
                    + container.id() + " from the store's change feed: its mirror reads a Cosmos DB account's "
                    + "change feed; run the mirror with --source cosmos, "
                    + "or run `docmirror backfill --container " + container.id() + "` to start it again from the "
                    + "store");
        }
        try {
            return new EmbeddedFeedSource(container.id(), ChangeFeedReader.open(store, container.id(),
                    ChangeFeedMode.ALL_VERSIONS_AND_DELETES, from.continuation() == null ? StartFrom.beginning()
                            : StartFrom.continuation(from.continuation())));
        } catch (StoreException e) {
            throw translated(container.id(), e);
        }
    }

    @Override
    public Changes read(int maxEvents) {
        ChangeFeedPage page;
        try {
            page = reader.readNext(maxEvents);
        } catch (StoreException e) {
            throw translated(container, e);
        }
        return new Changes(page.events(), page.caughtUp());
    }

    /**
     * What to throw for a failed call to the store: a store that does not answer (it restarts, say) is a
     * {@code SOURCE_UNAVAILABLE} {@link MirrorException}, to be waited out; any other failure stays as it is.
     */
    private static RuntimeException translated(String container, StoreException failure) {
        return failure.isRetriable()
                ? new MirrorException(MirrorErrorCode.SOURCE_UNAVAILABLE, "Cannot read the change feed of "
                        + container + ": " + failure.getMessage(), failure)
                : failure;
    }

    @Override
    public Checkpoint checkpoint() {
        return Checkpoint.ofContinuation(reader.continuation());
    }

    @Override
    public String gapRemedy(String container) {
        return "run `docmirror backfill --container " + container + "` to snapshot the container again, and the "
                + "daemon streams on from the snapshot.";
    }

    @Override
    public void close() {
        // The reader holds nothing open.
    }
}
