package io.docmirror.feed.processor;

import io.docmirror.feed.ChangeFeedMode;
import io.docmirror.feed.StartFrom;

import java.time.Duration;

import static java.util.Objects.requireNonNull;

/**
 * How a {@link ChangeFeedProcessor} works. The defaults follow Cosmos DB's change feed processor (lease expiry 60 s,
 * renewal every 17 s, acquisition every 13 s) except the poll interval, 1 s instead of 5 s, so that a mirror stays
 * about a second behind when the store is idle.
 *
 * @param processorName names the processor's leases: processors with another name read the same feed independently
 * @param workerId this worker's name, unique among the processor's workers (a host name and process id, say)
 * @param leaseContainer the store container that holds the leases (created when missing)
 * @param mode what the feed returns
 * @param startFrom where a feed range starts when its lease has no checkpoint yet
 * @param leaseDuration a lease not renewed for this long is free for another worker
 * @param renewInterval how often a worker renews its leases
 * @param acquireInterval how often a worker looks for free leases and balances the load
 * @param pollInterval how long a caught-up feed range waits before reading again
 * @param maxEventsPerBatch the most changes handed to one call of the handler
 * @param retryBackoff how long a feed range waits after its handler threw before it retries the batch
 */
public record ProcessorOptions(String processorName, String workerId, String leaseContainer, ChangeFeedMode mode,
        StartFrom startFrom, Duration leaseDuration, Duration renewInterval, Duration acquireInterval,
        Duration pollInterval, int maxEventsPerBatch, Duration retryBackoff) {
    public static final String DEFAULT_LEASE_CONTAINER = "leases";

    public ProcessorOptions {
        requireNonNull(processorName, "processorName is null");
        requireNonNull(workerId, "workerId is null");
        requireNonNull(leaseContainer, "leaseContainer is null");
        requireNonNull(mode, "mode is null");
        requireNonNull(startFrom, "startFrom is null");
        if (renewInterval.compareTo(leaseDuration) >= 0) {
            throw new IllegalArgumentException("The lease renew interval (" + renewInterval
                    + ") must be shorter than the lease duration (" + leaseDuration + ")");
        }
        if (maxEventsPerBatch < 1) {
            throw new IllegalArgumentException("maxEventsPerBatch must be at least 1: " + maxEventsPerBatch);
        }
    }

    public static ProcessorOptions defaults(String processorName, String workerId) {
        return new ProcessorOptions(processorName, workerId, DEFAULT_LEASE_CONTAINER,
                ChangeFeedMode.ALL_VERSIONS_AND_DELETES, StartFrom.beginning(), Duration.ofSeconds(60),
                Duration.ofSeconds(17), Duration.ofSeconds(13), Duration.ofSeconds(1), 1000, Duration.ofSeconds(1));
    }

    public ProcessorOptions withTimings(Duration lease, Duration renew, Duration acquire, Duration poll,
            Duration retry) {
        return new ProcessorOptions(processorName, workerId, leaseContainer, mode, startFrom, lease, renew, acquire,
                poll, maxEventsPerBatch, retry);
    }

    public ProcessorOptions withMode(ChangeFeedMode newMode) {
        return new ProcessorOptions(processorName, workerId, leaseContainer, newMode, startFrom, leaseDuration,
                renewInterval, acquireInterval, pollInterval, maxEventsPerBatch, retryBackoff);
    }

    public ProcessorOptions withMaxEventsPerBatch(int max) {
        return new ProcessorOptions(processorName, workerId, leaseContainer, mode, startFrom, leaseDuration,
                renewInterval, acquireInterval, pollInterval, max, retryBackoff);
    }
}
