package io.docmirror.mirror.reconcile;

import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * What a reconcile of one container found: per feed range, the store's documents and changes against the mirror's,
 * compared at the LSN the mirror holds, and the first differences.
 *
 * @param batch the mirror's batch compared; 0 when the container has no mirror yet
 * @param differences the first differences found (at most the limit the reconcile was given)
 * @param differenceCount every difference found
 */
public record ReconcileReport(String container, long batch, List<FeedRange> feedRanges,
        List<Difference> differences, long differenceCount) {
    public ReconcileReport {
        requireNonNull(container, "container is null");
        feedRanges = List.copyOf(feedRanges);
        differences = List.copyOf(differences);
    }

    /** Whether the mirror holds exactly what the store held at the mirror's position. */
    public boolean exact() {
        return differenceCount == 0;
    }

    /**
     * Counts and order-independent checksums (the sum of each item's 64-bit hash) of one side.
     */
    public record Tally(long count, long checksum) {
    }

    /**
     * One feed range.
     *
     * @param mirroredLsn the newest change of the range the mirror holds: both sides are compared as of it
     * @param store the store's current documents as of that LSN
     * @param mirror the documents the mirror serves
     * @param logStartLsn changes up to this LSN have left the store's change log: the history is compared after it
     * @param storeChanges the change log's changes after {@code logStartLsn}, up to {@code mirroredLsn}
     * @param mirrorChanges the mirror's history in the same span
     * @param notComparable documents whose state at {@code mirroredLsn} the store can no longer tell (changed or
     *     expired since, by changes older than its change log holds)
     */
    public record FeedRange(int feedRange, long mirroredLsn, Tally store, Tally mirror, long logStartLsn,
            Tally storeChanges, Tally mirrorChanges, long notComparable) {
    }

    /**
     * One document or change on which the two sides differ.
     *
     * @param what what differs, in words: missing on one side, or the first path whose values differ
     */
    public record Difference(int feedRange, String partitionKey, String id, String what) {
    }
}
