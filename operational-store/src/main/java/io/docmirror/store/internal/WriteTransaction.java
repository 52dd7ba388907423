package io.docmirror.store.internal;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.docmirror.store.Item;
import io.docmirror.store.PartitionKey;
import io.docmirror.store.PatchOperation;
import io.docmirror.store.Precondition;
import io.docmirror.store.StoreErrorCode;
import io.docmirror.store.StoreException;
import io.docmirror.store.StoreJson;
import io.docmirror.store.Upserted;
import io.docmirror.store.changelog.ChangeLogEntry;
import io.docmirror.store.changelog.Operation;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The writes of one atomic commit to one container: item puts and deletes, each with its change-log entry, the
 * expiry index and the log partitions' new ends, staged for one RocksDB batch. Later operations see the effects of
 * earlier ones, and of the writes queued for the group commit before it. Each operation checks everything before it
 * changes anything, so an operation that throws leaves the transaction as it was.
 *
 * <p>The caller holds the locks of every log partition the transaction writes to, from before the first read until
 * after {@link #commit()}, and then, without the locks, {@link #awaitDurable() waits} for the group commit.
 */
public final class WriteTransaction {
    private final RocksStorage storage;
    private final GroupCommitter committer;
    private final ContainerState container;
    private final long nowMillis;
    private final long nowSeconds;
    private final StagedChanges changes = new StagedChanges();
    /** Items written in this transaction; an empty Optional is an item deleted in it. */
    private final Map<ItemKey, Optional<StoredItem>> overlay = new HashMap<>();
    private final Map<Integer, Long> lastLsns = new TreeMap<>();
    /** Items read ahead of the operations that need them; an empty Optional is an item that did not exist. */
    private final Map<ItemKey, Optional<StoredItem>> readAhead = new HashMap<>();
    private GroupCommitter.Commit queued;

    public WriteTransaction(RocksStorage storage, GroupCommitter committer, ContainerState container, long nowMillis) {
        this.storage = storage;
        this.committer = committer;
        this.container = container;
        this.nowMillis = nowMillis;
        this.nowSeconds = Math.floorDiv(nowMillis, 1000);
    }

    /**
     * Reads the current items of the documents' keys in one call, for the operations on them that follow: a bulk
     * load of new documents otherwise spends a fifth of its time asking RocksDB one key at a time.
     */
    public void readAhead(List<ValidatedDocument> documents) {
        List<byte[]> keys = new ArrayList<>(documents.size());
        for (ValidatedDocument document : documents) {
            byte[] key = key(document.partitionKey(), document.id());
            // A queued write's item may become durable (and leave the pending items) while we read: read it later.
            if (container.pendingItems().get(new ItemKey(key)) == null) {
                keys.add(key);
            }
        }
        List<byte[]> values = storage.multiGet(storage.items(), keys);
        for (int index = 0; index < keys.size(); index++) {
            byte[] value = values.get(index);
            readAhead.put(new ItemKey(keys.get(index)),
                    value == null ? Optional.empty() : Optional.of(StoredItem.decode(value)));
        }
    }

    public Item create(ValidatedDocument document) {
        byte[] key = key(document.partitionKey(), document.id());
        if (readLive(key).isPresent()) {
            throw conflict(document);
        }
        return container.toItem(key, put(key, document, null));
    }

    /** Creates or replaces the item, saying which (a precondition requires the item to exist). */
    public Upserted upsert(ValidatedDocument document, Precondition precondition) {
        byte[] key = key(document.partitionKey(), document.id());
        Optional<StoredItem> current = readLive(key);
        if (precondition.ifMatchEtag().isPresent()) {
            StoredItem existing = current.orElseThrow(() -> preconditionFailed(document.id(), "it does not exist"));
            checkPrecondition(key, document.id(), existing, precondition);
        }
        return new Upserted(container.toItem(key, put(key, document, current.orElse(null))), current.isEmpty());
    }

    /**
     * A create, or with {@code upsert} an upsert without precondition, that does not build the {@link Item} a single
     * write returns (its JSON as a String): a bulk write reports counts only.
     */
    public void write(ValidatedDocument document, boolean upsert) {
        byte[] key = key(document.partitionKey(), document.id());
        Optional<StoredItem> current = readLive(key);
        if (current.isPresent() && !upsert) {
            throw conflict(document);
        }
        put(key, document, current.orElse(null));
    }

    public Item replace(PartitionKey partitionKey, String id, ValidatedDocument document, Precondition precondition) {
        if (!document.id().equals(id) || !document.partitionKey().equals(partitionKey)) {
            throw new StoreException(StoreErrorCode.BAD_REQUEST, "Cannot replace item '" + id + "' in container "
                    + container.name() + ": the document's id '" + document.id() + "' and partition key "
                    + document.partitionKey().toWire() + " must be the item's (" + partitionKey.toWire() + ")");
        }
        byte[] key = key(partitionKey, id);
        StoredItem existing = requireLive(key, partitionKey, id, "replace");
        checkPrecondition(key, id, existing, precondition);
        return container.toItem(key, put(key, document, existing));
    }

    public Item patch(PartitionKey partitionKey, String id, List<PatchOperation> operations, Precondition precondition) {
        byte[] key = key(partitionKey, id);
        StoredItem existing = requireLive(key, partitionKey, id, "patch");
        checkPrecondition(key, id, existing, precondition);
        ObjectNode tree;
        try {
            tree = (ObjectNode) StoreJson.mapper().readTree(existing.json());
        } catch (IOException e) {
            throw new StoreException(StoreErrorCode.INTERNAL_ERROR, "Cannot patch item '" + id + "' in container "
                    + container.name() + ": its stored JSON does not parse", e);
        }
        container.patchApplier().apply(id, tree, operations);
        byte[] patched;
        try {
            patched = StoreJson.mapper().writeValueAsBytes(tree);
        } catch (IOException e) {
            throw new StoreException(StoreErrorCode.INTERNAL_ERROR, "Cannot patch item '" + id + "'", e);
        }
        return container.toItem(key, put(key, container.validator().validate(patched), existing));
    }

    public void delete(PartitionKey partitionKey, String id, Precondition precondition) {
        byte[] key = key(partitionKey, id);
        StoredItem existing = requireLive(key, partitionKey, id, "delete");
        checkPrecondition(key, id, existing, precondition);
        remove(key, id, existing, false);
    }

    public Optional<Item> read(PartitionKey partitionKey, String id) {
        byte[] key = key(partitionKey, id);
        StoredItem stored = current(key).orElse(null);
        if (stored == null || TtlPolicy.isExpired(container.expiresAt(stored), nowSeconds)) {
            return Optional.empty();
        }
        return Optional.of(container.toItem(key, stored));
    }

    /**
     * Removes an item whose TTL has passed, with a DELETE marked {@code ttlExpired} in the change log. Does nothing
     * when the item is gone or no longer expired (it was rewritten since the expiry index entry was read).
     *
     * @return whether the item was removed
     */
    public boolean expire(byte[] key) {
        Optional<StoredItem> stored = current(key);
        if (stored.isEmpty() || !TtlPolicy.isExpired(container.expiresAt(stored.get()), nowSeconds)) {
            return false;
        }
        remove(key, KeyLayout.itemId(key), stored.get(), true);
        return true;
    }

    /** Removes an expiry index entry whose item no longer expires at that time. */
    public void dropExpiryEntry(byte[] expiryKey) {
        changes.delete(storage.expiry(), expiryKey);
    }

    /**
     * Queues every change of the transaction for the group commit, under the caller's locks: the next writer of
     * these log partitions builds on it. Nothing is visible to readers before {@link #awaitDurable()} returns.
     */
    public void commit() {
        if (lastLsns.isEmpty() && changes.isEmpty()) {
            return;
        }
        for (Map.Entry<Integer, Long> entry : lastLsns.entrySet()) {
            changes.put(storage.logEnds(), KeyLayout.logEndKey(container.containerId(), entry.getKey()),
                    KeyLayout.longValue(entry.getValue()));
        }
        Map<Integer, Long> ends = Map.copyOf(lastLsns);
        // Published before the commit is queued: once queued, it may be durable (and forgotten) at any moment.
        Map<ItemKey, PendingItems.Version> versions = new HashMap<>();
        overlay.forEach((key, item) -> versions.put(key, container.pendingItems().put(key, item)));
        ends.forEach(container::advanceAssignedEnd);
        queued = committer.enqueue(changes, () -> {
            ends.forEach(container::advanceLogEnd);
            versions.forEach(container.pendingItems()::durable);
        });
    }

    /** Waits, without the locks, until the committed changes are durable (at once when there were none). */
    public void awaitDurable() {
        if (queued != null) {
            committer.awaitDurable(queued);
        }
    }

    public byte[] key(PartitionKey partitionKey, String id) {
        return KeyLayout.itemKey(container.containerId(), container.logPartitionOf(partitionKey),
                partitionKey.encoded(), id);
    }

    private Optional<StoredItem> current(byte[] key) {
        ItemKey wrapped = new ItemKey(key);
        Optional<StoredItem> written = overlay.get(wrapped);
        if (written != null) {
            return written;
        }
        PendingItems.Version queuedVersion = container.pendingItems().get(wrapped);
        if (queuedVersion != null) {
            return queuedVersion.item();
        }
        Optional<StoredItem> readBefore = readAhead.get(wrapped);
        if (readBefore != null) {
            return readBefore;
        }
        byte[] value = storage.get(storage.items(), key);
        return value == null ? Optional.empty() : Optional.of(StoredItem.decode(value));
    }

    /**
     * The item if it exists and has not expired. An expired item that the reaper has not removed yet is removed
     * here first (a TTL DELETE in the change log), so that the log never shows a write over an expired item.
     */
    private Optional<StoredItem> readLive(byte[] key) {
        Optional<StoredItem> stored = current(key);
        if (stored.isPresent() && TtlPolicy.isExpired(container.expiresAt(stored.get()), nowSeconds)) {
            remove(key, KeyLayout.itemId(key), stored.get(), true);
            return Optional.empty();
        }
        return stored;
    }

    private StoredItem requireLive(byte[] key, PartitionKey partitionKey, String id, String action) {
        return readLive(key).orElseThrow(() -> new StoreException(StoreErrorCode.NOT_FOUND,
                "Cannot " + action + " item '" + id + "' in container " + container.name() + " with partition key "
                        + partitionKey.toWire() + ": it does not exist"));
    }

    private void checkPrecondition(byte[] key, String id, StoredItem existing, Precondition precondition) {
        if (precondition.ifMatchEtag().isEmpty()) {
            return;
        }
        String etag = StoredItem.etag(container.containerId(), KeyLayout.itemLogPartition(key), existing.lsn());
        if (!precondition.ifMatchEtag().get().equals(etag)) {
            throw preconditionFailed(id, "its _etag is " + etag + ", not " + precondition.ifMatchEtag().get());
        }
    }

    private StoreException conflict(ValidatedDocument document) {
        return new StoreException(StoreErrorCode.CONFLICT, "Cannot create item '" + document.id() + "' in container "
                + container.name() + ": an item with this id already exists in partition "
                + document.partitionKey().toWire());
    }

    private StoreException preconditionFailed(String id, String reason) {
        return new StoreException(StoreErrorCode.PRECONDITION_FAILED, "Cannot write item '" + id + "' in container "
                + container.name() + ": If-Match failed, " + reason);
    }

    private StoredItem put(byte[] key, ValidatedDocument document, StoredItem previous) {
        int logPartition = KeyLayout.itemLogPartition(key);
        long lsn = lastLsn(logPartition) + 1;
        long createdLsn = previous == null ? lsn : previous.createdLsn();
        byte[] json = document.withSystemProperties(
                StoredItem.rid(container.containerId(), logPartition, createdLsn),
                StoredItem.etag(container.containerId(), logPartition, lsn), nowSeconds, lsn);
        if (json.length > DocumentValidator.MAX_ITEM_BYTES) {
            throw new StoreException(StoreErrorCode.TOO_LARGE, "Cannot write item '" + document.id() + "' to container "
                    + container.name() + ": it is " + json.length + " bytes with its system properties, over the limit of "
                    + DocumentValidator.MAX_ITEM_BYTES + " bytes (2 MB)");
        }
        StoredItem stored = new StoredItem(lsn, nowSeconds, createdLsn, document.ttl(), json);
        Operation operation = previous == null ? Operation.CREATE : Operation.REPLACE;
        byte[] event = ChangeLogEntry.encode(container.name(), document.partitionKey().toJson(), document.id(),
                operation, lsn, nowMillis, false, json, previous == null ? null : previous.json());
        changes.put(storage.items(), key, stored.encode());
        changes.put(storage.changeLog(), KeyLayout.changeLogKey(container.containerId(), logPartition, lsn), event);
        updateExpiryIndex(key, previous, stored);
        overlay.put(new ItemKey(key), Optional.of(stored));
        lastLsns.put(logPartition, lsn);
        return stored;
    }

    /** The DELETE names the key as the item spells it, whatever spelling of the same key the caller gave. */
    private void remove(byte[] key, String id, StoredItem previous, boolean ttlExpired) {
        int logPartition = KeyLayout.itemLogPartition(key);
        long lsn = lastLsn(logPartition) + 1;
        byte[] event = ChangeLogEntry.encode(container.name(), container.partitionKeyValue(key, previous).toJson(), id,
                Operation.DELETE, lsn, nowMillis, ttlExpired, null, previous.json());
        changes.delete(storage.items(), key);
        changes.put(storage.changeLog(), KeyLayout.changeLogKey(container.containerId(), logPartition, lsn), event);
        updateExpiryIndex(key, previous, null);
        overlay.put(new ItemKey(key), Optional.empty());
        lastLsns.put(logPartition, lsn);
    }

    private void updateExpiryIndex(byte[] key, StoredItem previous, StoredItem next) {
        long previousExpiry = previous == null ? TtlPolicy.NEVER : container.expiresAt(previous);
        long nextExpiry = next == null ? TtlPolicy.NEVER : container.expiresAt(next);
        if (previousExpiry == nextExpiry) {
            return;
        }
        if (previousExpiry != TtlPolicy.NEVER) {
            changes.delete(storage.expiry(), KeyLayout.expiryKey(container.containerId(), previousExpiry, key));
        }
        if (nextExpiry != TtlPolicy.NEVER) {
            changes.put(storage.expiry(), KeyLayout.expiryKey(container.containerId(), nextExpiry, key), new byte[0]);
        }
    }

    private long lastLsn(int logPartition) {
        return lastLsns.computeIfAbsent(logPartition, container::assignedEnd);
    }
}
