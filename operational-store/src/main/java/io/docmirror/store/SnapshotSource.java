package io.docmirror.store;

/**
 * A store that can give consistent snapshots of its containers, for backfill ({@link EmbeddedStore} does; over HTTP,
 * {@code HttpStoreClient.asSnapshotSource()}).
 */
public interface SnapshotSource {
    /** @throws StoreException 404 when there is no such container */
    ContainerProperties readContainer(String container);

    /**
     * Opens a consistent snapshot of a container's live items over all its log partitions at once. Close it when
     * done.
     *
     * @throws StoreException 404 for an unknown container
     */
    StoreSnapshot openSnapshot(String container);

    /**
     * Opens a consistent snapshot of one log partition's live items: exactly the changes up to the snapshot's LSN,
     * whatever is written while it is read. Close it when done.
     *
     * @throws StoreException 404 for an unknown container, 400 for a log partition out of range
     */
    default PartitionSnapshot snapshot(String container, int logPartition) {
        return PartitionSnapshot.open(openSnapshot(container), logPartition);
    }
}
