package io.docmirror.feed.processor;

import io.docmirror.feed.ChangeFeedReader;
import io.docmirror.feed.ContinuationToken;
import io.docmirror.feed.FeedRange;
import io.docmirror.store.ChangeLogPage;
import io.docmirror.store.StoreClient;
import io.docmirror.store.StoreErrorCode;
import io.docmirror.store.StoreException;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * How far a change feed processor is behind, per feed range: from its leases' checkpoints and the log's end.
 */
public final class ChangeFeedEstimator {
    private ChangeFeedEstimator() {
    }

    /**
     * @param owner the worker holding the lease, {@code null} when none does
     * @param eventsBehind changes committed after the checkpoint
     * @param timeBehind how long ago the oldest change not yet checkpointed was committed; zero when caught up
     */
    public record Lag(FeedRange feedRange, String owner, long checkpointLsn, long logEndLsn, long eventsBehind,
            Duration timeBehind) {
    }

    /**
     * The lag of each of the container's feed ranges. A feed range without a lease (the processor has not started)
     * is behind by its whole log.
     */
    public static List<Lag> estimate(StoreClient store, String container, String processorName, String leaseContainer,
            Clock clock) {
        Map<Integer, Lease> leasesByRange = new HashMap<>();
        try {
            for (Lease lease : new LeaseStore(store, leaseContainer, container, processorName).list()) {
                leasesByRange.put(lease.logPartition(), lease);
            }
        } catch (StoreException e) {
            if (e.code() != StoreErrorCode.NOT_FOUND) {
                throw e;
            }
        }
        List<Lag> lags = new ArrayList<>();
        long now = clock.millis();
        for (FeedRange range : ChangeFeedReader.feedRanges(store, container)) {
            Lease lease = leasesByRange.get(range.logPartition());
            String owner = lease == null || lease.isFree(now) ? null : lease.owner();
            lags.add(lag(store, range, lease == null ? null : lease.continuation(), owner, now));
        }
        return lags;
    }

    /**
     * The lag of each of the container's feed ranges behind one reader's continuation (the mirror's checkpoint, say);
     * behind by the whole log without one.
     */
    public static List<Lag> estimate(StoreClient store, String container, Optional<String> continuation, Clock clock) {
        List<Lag> lags = new ArrayList<>();
        long now = clock.millis();
        for (FeedRange range : ChangeFeedReader.feedRanges(store, container)) {
            lags.add(lag(store, range, continuation.orElse(null), null, now));
        }
        return lags;
    }

    /** Changes behind, over all feed ranges. */
    public static long eventsBehind(List<Lag> lags) {
        return lags.stream().mapToLong(Lag::eventsBehind).sum();
    }

    /** The age of the oldest change behind, over all feed ranges; zero when caught up. */
    public static Duration timeBehind(List<Lag> lags) {
        return lags.stream().map(Lag::timeBehind).max(Duration::compareTo).orElse(Duration.ZERO);
    }

    private static Lag lag(StoreClient store, FeedRange range, String continuation, String owner, long now) {
        String container = range.container();
        ChangeLogPage bounds = store.readChangeLog(container, range.logPartition(), Long.MAX_VALUE, 1);
        long checkpoint = continuation == null
                ? bounds.logStartLsn()
                : ContinuationToken.decode(continuation).positions().getOrDefault(range.logPartition(), 0L);
        Duration timeBehind = Duration.ZERO;
        if (checkpoint < bounds.logEndLsn() && checkpoint >= bounds.logStartLsn()) {
            ChangeLogPage next = store.readChangeLog(container, range.logPartition(), checkpoint, 1);
            if (!next.events().isEmpty()) {
                timeBehind = Duration.ofMillis(Math.max(0, now - next.events().get(0).ts()));
            }
        }
        return new Lag(range, owner, checkpoint, bounds.logEndLsn(), Math.max(0, bounds.logEndLsn() - checkpoint),
                timeBehind);
    }
}
