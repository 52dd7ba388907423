package io.docmirror.feed;

import static java.util.Objects.requireNonNull;

/**
 * One feed range of a container: one of the store's log partitions. Changes to one partition key value always fall
 * in the same feed range, in order; different feed ranges can be read in parallel.
 */
public record FeedRange(String container, int logPartition) {
    public FeedRange {
        requireNonNull(container, "container is null");
        if (logPartition < 0) {
            throw new IllegalArgumentException("logPartition must not be negative: " + logPartition);
        }
    }

    @Override
    public String toString() {
        return container + "[" + logPartition + "]";
    }
}
