package io.docmirror.feed.processor;

import io.docmirror.feed.ContinuationToken;
import io.docmirror.feed.FeedRange;
import io.docmirror.store.ChangeLogPage;
import io.docmirror.store.StoreClient;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

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

    public static List<Lag> estimate(StoreClient store, String container, String processorName, String leaseContainer,
            Clock clock) {
        List<Lag> lags = new ArrayList<>();
        long now = clock.millis();
        for (Lease lease : new LeaseStore(store, leaseContainer, container, processorName).list()) {
            FeedRange range = new FeedRange(container, lease.logPartition());
            ChangeLogPage bounds = store.readChangeLog(container, lease.logPartition(), Long.MAX_VALUE, 1);
            long checkpoint = lease.continuation() == null
                    ? bounds.logStartLsn()
                    : ContinuationToken.decode(lease.continuation()).positions().getOrDefault(lease.logPartition(), 0L);
            Duration timeBehind = Duration.ZERO;
            if (checkpoint < bounds.logEndLsn() && checkpoint >= bounds.logStartLsn()) {
                ChangeLogPage next = store.readChangeLog(container, lease.logPartition(), checkpoint, 1);
                if (!next.events().isEmpty()) {
                    timeBehind = Duration.ofMillis(Math.max(0, now - next.events().get(0).ts()));
                }
            }
            String owner = lease.isFree(now) ? null : lease.owner();
            lags.add(new Lag(range, owner, checkpoint, bounds.logEndLsn(), Math.max(0, bounds.logEndLsn() - checkpoint),
                    timeBehind));
        }
        return lags;
    }
}
