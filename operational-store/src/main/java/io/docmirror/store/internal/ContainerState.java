package io.docmirror.store.internal;

import io.docmirror.store.ContainerProperties;
import io.docmirror.store.Item;
import io.docmirror.store.PartitionKey;
import io.docmirror.store.PartitionKeyValue;
import io.docmirror.store.StoreErrorCode;
import io.docmirror.store.StoreException;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A live container: its settings (the TTLs may be replaced while it lives), its internal numeric id (never reused, so a deleted container's leftovers cannot
 * mix with a new container of the same name), its log partitions' locks and ends, and the items of its writes
 * queued for the group commit.
 */
public final class ContainerState {
    /** Replaced whole when the container's settings are ({@link #replaceProperties}); what never changes is below. */
    private volatile ContainerProperties properties;
    private final int containerId;
    private final DocumentValidator validator;
    private final PatchApplier patchApplier;
    private final PartitionKeySpelling partitionKeySpelling;
    private final PartitionLocks locks;
    private final PendingItems pendingItems = new PendingItems();
    private final int logPartitions;
    private final AtomicLongArray logEnds;
    /** The last LSN given to a queued write, per log partition: ahead of the log end while writes are queued. */
    private final AtomicLongArray assignedEnds;
    private final AtomicLongArray logStarts;
    private volatile boolean deleted;

    public ContainerState(ContainerProperties properties, int containerId, long[] logEnds, long[] logStarts) {
        this.properties = properties;
        this.containerId = containerId;
        this.validator = new DocumentValidator(properties.id(), properties.partitionKeyPath());
        this.patchApplier = new PatchApplier(properties.id(), properties.partitionKeyPath());
        this.partitionKeySpelling = new PartitionKeySpelling(properties.id(), properties.partitionKeyPath());
        this.logPartitions = properties.logPartitions();
        this.locks = new PartitionLocks(logPartitions);
        this.logEnds = new AtomicLongArray(logEnds);
        this.assignedEnds = new AtomicLongArray(logEnds);
        this.logStarts = new AtomicLongArray(logStarts);
    }

    public ContainerProperties properties() {
        return properties;
    }

    /**
     * Gives the container settings a replace made; the caller has checked that only what may change did (the TTLs,
     * the etag), and holds every log partition's lock.
     */
    public void replaceProperties(ContainerProperties replaced) {
        properties = replaced;
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
        return logPartitions;
    }

    public int logPartitionOf(PartitionKey partitionKey) {
        return properties.logPartitionOf(partitionKey);
    }

    public PartitionLocks locks() {
        return locks;
    }

    PendingItems pendingItems() {
        return pendingItems;
    }

    /** The newest durable LSN of a log partition (what readers may see); 0 before the first write. */
    public long logEnd(int logPartition) {
        return logEnds.get(logPartition);
    }

    void advanceLogEnd(int logPartition, long lsn) {
        logEnds.set(logPartition, lsn);
    }

    /** The newest LSN given to a write, durable or queued; read and advanced under the partition's lock. */
    long assignedEnd(int logPartition) {
        return assignedEnds.get(logPartition);
    }

    void advanceAssignedEnd(int logPartition, long lsn) {
        assignedEnds.set(logPartition, lsn);
    }

    /** The newest LSN that retention removed from a log partition; events after it are readable. */
    public long logStart(int logPartition) {
        return logStarts.get(logPartition);
    }

    public void advanceLogStart(int logPartition, long lsn) {
        logStarts.set(logPartition, lsn);
    }

    /** @throws StoreException 400 when the container has no such log partition */
    public void checkLogPartition(int logPartition) {
        if (logPartition < 0 || logPartition >= logPartitions) {
            throw new StoreException(StoreErrorCode.BAD_REQUEST, "Container " + name() + " has log partitions 0 to "
                    + (logPartitions - 1) + ", not " + logPartition);
        }
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

    /**
     * The partition key value of the item stored under {@code key}, as its document spells it: what its change events
     * and a snapshot of it carry ({@link PartitionKeySpelling}).
     */
    public PartitionKeyValue partitionKeyValue(byte[] key, StoredItem stored) {
        return partitionKeySpelling.of(PartitionKey.decode(KeyLayout.itemPartitionKey(key)), KeyLayout.itemId(key),
                stored.json());
    }

    /**
     * The item stored under {@code key}, with its system properties, as the API returns it: its partition key is
     * spelled as its document spells it.
     */
    public Item toItem(byte[] key, StoredItem stored) {
        int logPartition = KeyLayout.itemLogPartition(key);
        return new Item(KeyLayout.itemId(key), partitionKeyValue(key, stored).toPartitionKey(),
                StoredItem.etag(containerId, logPartition, stored.lsn()), stored.lsn(),
                new String(stored.json(), StandardCharsets.UTF_8));
    }
}
