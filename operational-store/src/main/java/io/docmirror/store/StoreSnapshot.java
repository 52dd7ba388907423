package io.docmirror.store;

/**
 * A consistent snapshot of a container over all its log partitions, opened once ({@link SnapshotSource#openSnapshot})
 * and shared by its readers. Close it when done: until then the store keeps every item version the snapshot may
 * read.
 */
public interface StoreSnapshot extends SnapshotReader, AutoCloseable {
    /** Releases the snapshot; reads after it fail. Closing again does nothing. */
    @Override
    void close();
}
