package io.docmirror.store;

/**
 * A store that can give consistent snapshots of its log partitions, for backfill ({@link EmbeddedStore} does; the
 * HTTP API does not).
 */
public interface SnapshotSource {
    /** @throws StoreException 404 when there is no such container */
    ContainerProperties readContainer(String container);

    /**
     * Opens a consistent snapshot of one log partition's live items: exactly the changes up to the snapshot's LSN,
     * whatever is written while it is read. Close it when done.
     *
     * @throws StoreException 404 for an unknown container, 400 for a log partition out of range
     */
    PartitionSnapshot snapshot(String container, int logPartition);
}
