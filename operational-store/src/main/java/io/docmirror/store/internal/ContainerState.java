package io.docmirror.store.internal;

import io.docmirror.store.ContainerProperties;
import io.docmirror.store.PartitionKey;

import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A live container: its settings, its internal numeric id (never reused, so a deleted container's leftovers cannot
 * mix with a new container of the same name), and one write lock per log partition. Holding a log partition's lock
 * while a write is built and committed makes LSN order the commit order.
 */
public final class ContainerState {
    private final ContainerProperties properties;
    private final int containerId;
    private final DocumentValidator validator;
    private final PatchApplier patchApplier;
    private final ReentrantLock[] locks;
    private final AtomicLongArray logEnds;
    private final AtomicLongArray logStarts;
    private volatile boolean deleted;

    public ContainerState(ContainerProperties properties, int containerId, long[] logEnds, long[] logStarts) {
        this.properties = properties;
        this.containerId = containerId;
        this.validator = new DocumentValidator(properties.id(), properties.partitionKeyPath());
        this.patchApplier = new PatchApplier(properties.id(), properties.partitionKeyPath());
        this.locks = new ReentrantLock[properties.logPartitions()];
        for (int index = 0; index < locks.length; index++) {
            locks[index] = new ReentrantLock();
        }
        this.logEnds = new AtomicLongArray(logEnds);
        this.logStarts = new AtomicLongArray(logStarts);
    }

    public ContainerProperties properties() {
        return properties;
    }

    public String name() {
        return properties.id();
    }

    public int containerId() {
        return containerId;
    }

    public DocumentValidator validator() {
        return validator;
    }

    public PatchApplier patchApplier() {
        return patchApplier;
    }

    public int logPartitions() {
        return locks.length;
    }

    public int logPartitionOf(PartitionKey partitionKey) {
        return properties.logPartitionOf(partitionKey);
    }

    public ReentrantLock lock(int logPartition) {
        return locks[logPartition];
    }

    /** The newest committed LSN of a log partition; 0 before the first write. */
    public long logEnd(int logPartition) {
        return logEnds.get(logPartition);
    }

    void advanceLogEnd(int logPartition, long lsn) {
        logEnds.set(logPartition, lsn);
    }

    /** The newest LSN that retention removed from a log partition; events after it are readable. */
    public long logStart(int logPartition) {
        return logStarts.get(logPartition);
    }

    public void advanceLogStart(int logPartition, long lsn) {
        logStarts.set(logPartition, lsn);
    }

    public boolean isDeleted() {
        return deleted;
    }

    public void markDeleted() {
        deleted = true;
    }

    public long expiresAt(StoredItem item) {
        return TtlPolicy.expiresAt(properties.defaultTtl(), item.ttl(), item.tsSeconds());
    }
}
