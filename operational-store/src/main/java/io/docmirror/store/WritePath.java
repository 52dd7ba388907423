package io.docmirror.store;

import io.docmirror.store.internal.ContainerState;
import io.docmirror.store.internal.GroupCommitter;
import io.docmirror.store.internal.PartitionLocks;
import io.docmirror.store.internal.RocksStorage;
import io.docmirror.store.internal.WriteTransaction;

import java.time.Clock;
import java.util.Collection;
import java.util.List;
import java.util.function.Function;

/**
 * How every write runs: under the locks of the log partitions it writes, it reads what it changes, gets its LSNs
 * and queues its changes for the group commit; then, with the locks released so that the next writers can queue
 * theirs, it waits until the fsync that covers it is done. A write is acknowledged (returns) only once it is
 * durable, and readers see it only then.
 */
final class WritePath {
    private final RocksStorage storage;
    private final GroupCommitter committer;
    private final Clock clock;

    WritePath(RocksStorage storage, GroupCommitter committer, Clock clock) {
        this.storage = storage;
        this.committer = committer;
        this.clock = clock;
    }

    /** Runs {@code work} on the item's log partition and commits what it wrote. */
    <T> T inPartition(ContainerState state, PartitionKey partitionKey, Function<WriteTransaction, T> work) {
        return run(state, List.of(state.logPartitionOf(partitionKey)), work, true);
    }

    /**
     * Runs {@code work} on the item's log partition; the work commits the transaction itself, or returns without
     * committing to leave nothing written (a batch that fails part way).
     */
    <T> T inPartitionAllOrNothing(ContainerState state, PartitionKey partitionKey, Function<WriteTransaction, T> work) {
        return run(state, List.of(state.logPartitionOf(partitionKey)), work, false);
    }

    /** Runs {@code work} in one transaction over the log partitions of {@code partitionKeys} and commits it. */
    <T> T inPartitions(ContainerState state, List<PartitionKey> partitionKeys, Function<WriteTransaction, T> work) {
        return inLogPartitions(state, partitionKeys.stream().map(state::logPartitionOf).toList(), work);
    }

    <T> T inLogPartitions(ContainerState state, Collection<Integer> logPartitions, Function<WriteTransaction, T> work) {
        return run(state, logPartitions, work, true);
    }

    /**
     * Like {@link #inPartitions} but returns as soon as the transaction is queued for the group commit, before it is
     * durable: the caller may build its next write meanwhile (a bulk load does), and must {@link Queued#awaitDurable
     * wait} before it tells anyone the write happened.
     */
    <T> Queued<T> queueInPartitions(ContainerState state, List<PartitionKey> partitionKeys,
            Function<WriteTransaction, T> work) {
        return queue(state, partitionKeys.stream().map(state::logPartitionOf).toList(), work, true);
    }

    /** A transaction queued for the group commit, and what its work returned. */
    static final class Queued<T> {
        private final WriteTransaction transaction;
        private final T result;

        private Queued(WriteTransaction transaction, T result) {
            this.transaction = transaction;
            this.result = result;
        }

        /** What the work returned; the write is not durable until {@link #awaitDurable()} returns. */
        T result() {
            return result;
        }

        /** @throws StoreException 503 when the group commit that holds the transaction failed */
        T awaitDurable() {
            transaction.awaitDurable();
            return result;
        }
    }

    private <T> T run(ContainerState state, Collection<Integer> logPartitions, Function<WriteTransaction, T> work,
            boolean commitAfterWork) {
        return queue(state, logPartitions, work, commitAfterWork).awaitDurable();
    }

    private <T> Queued<T> queue(ContainerState state, Collection<Integer> logPartitions,
            Function<WriteTransaction, T> work, boolean commitAfterWork) {
        WriteTransaction transaction = new WriteTransaction(storage, committer, state, clock.millis());
        try (PartitionLocks.Held held = state.locks().lock(logPartitions)) {
            if (state.isDeleted()) {
                throw new StoreException(StoreErrorCode.NOT_FOUND, "Container " + state.name() + " does not exist");
            }
            T result = work.apply(transaction);
            if (commitAfterWork) {
                transaction.commit();
            }
            return new Queued<>(transaction, result);
        }
    }
}
