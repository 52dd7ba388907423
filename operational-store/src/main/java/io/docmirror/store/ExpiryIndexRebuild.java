package io.docmirror.store;

import io.docmirror.store.internal.KeyLayout;
import io.docmirror.store.internal.RocksStorage;
import io.docmirror.store.internal.StoredItem;
import io.docmirror.store.internal.TtlPolicy;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

/**
 * Makes a container's expiry index (what the {@link TtlReaper} walks, keyed by when each item expires) again from its
 * items, for a new default TTL: a write keeps its item's entry right, but a replaced default TTL moves the expiry of
 * every item that has no {@code ttl} of its own, and turning TTL on gives entries to items that had none. The old
 * entries go, then the new ones are written a chunk at a time, so a container of any size needs little memory.
 *
 * <p>The caller holds every log partition's lock of the container (no write changes its items meanwhile) and has
 * drained the group commit. The container's catalog record says the index is being rebuilt until it is done, so a
 * rebuild that a crash cut short is done again when the store opens ({@link ContainerCatalog}).
 */
final class ExpiryIndexRebuild {
    /** Expiry entries per RocksDB write: about a megabyte of keys for typical ids. */
    private static final int ENTRIES_PER_WRITE = 10_000;

    private ExpiryIndexRebuild() {
    }

    /** @return how many items now have an expiry entry */
    static long rebuild(RocksStorage storage, int containerId, Integer defaultTtl) {
        byte[] prefix = KeyLayout.containerPrefix(containerId);
        byte[] end = KeyLayout.prefixEnd(prefix);
        storage.deleteRange(storage.expiry(), prefix, end);
        if (defaultTtl == null) {
            return 0; // TTL off: nothing expires
        }
        long entries = 0;
        try (var items = storage.iterate(storage.items(), prefix, end); WriteBatch batch = new WriteBatch()) {
            for (; items.valid(); items.next()) {
                StoredItem item = StoredItem.decode(items.value());
                long expiresAt = TtlPolicy.expiresAt(defaultTtl, item.ttl(), item.tsSeconds());
                if (expiresAt == TtlPolicy.NEVER) {
                    continue;
                }
                batch.put(storage.expiry(), KeyLayout.expiryKey(containerId, expiresAt, items.key()), new byte[0]);
                entries++;
                if (batch.count() == ENTRIES_PER_WRITE) {
                    storage.write(batch);
                    batch.clear();
                }
            }
            storage.write(batch);
        } catch (RocksDBException e) {
            throw new StoreException(StoreErrorCode.UNAVAILABLE, "Cannot rebuild the expiry index of container id "
                    + containerId + ": " + e.getMessage(), e);
        }
        return entries;
    }
}
