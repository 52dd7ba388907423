package io.docmirror.store;

import java.util.List;

/**
 * How the store's writes shared their fsyncs since it was opened: each group is one synced RocksDB write that made
 * every transaction in it durable (a transaction is one acknowledged write call: an item write, a batch, a bulk
 * write, a TTL removal).
 *
 * @param groups synced writes, one per group
 * @param transactions transactions made durable by them
 * @param groupsUpTo for each bound of {@link #SIZE_BOUNDS}, the groups of at most that many transactions
 *        (cumulative, as a Prometheus histogram counts); groups larger than the last bound count in {@code groups}
 *        only
 */
public record GroupCommitStatistics(long groups, long transactions, List<Long> groupsUpTo) {
    /** The group sizes the statistics count up to: powers of two. */
    public static final List<Integer> SIZE_BOUNDS = List.of(1, 2, 4, 8, 16, 32, 64, 128, 256);

    public GroupCommitStatistics {
        groupsUpTo = List.copyOf(groupsUpTo);
        if (groupsUpTo.size() != SIZE_BOUNDS.size()) {
            throw new IllegalArgumentException("groupsUpTo has " + groupsUpTo.size() + " counts, not one per bound ("
                    + SIZE_BOUNDS.size() + ")");
        }
    }

    /** Groups of more than one transaction: writes that shared an fsync. */
    public long sharedGroups() {
        return groups - groupsUpTo.get(0);
    }
}
