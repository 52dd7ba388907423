package io.docmirror.mirror.iceberg;

/**
 * What one application of a container's analytical TTL to its tables found ({@link ContainerTables#applyAnalyticalTtl}).
 *
 * @param cutoffTs rows whose {@code _ts} is at or before this (seconds since the epoch) expired: the mirror clock's
 *     second minus the TTL
 * @param documents the documents whose rows (root and child) were deleted
 * @param historyEntries the history's rows that were deleted
 * @param filesRead the data files read to find them; 0 when the manifests' statistics showed nothing could be due
 * @param complete whether every row due was deleted; false when the commit reached its bound
 *     ({@code mirror.batch.max-events} documents, and as many history entries) and more are due
 */
public record TtlExpiry(long cutoffTs, int documents, int historyEntries, int filesRead, boolean complete) {
    /** Whether anything expired, so that the tables got a commit. */
    public boolean committed() {
        return documents > 0 || historyEntries > 0;
    }
}
