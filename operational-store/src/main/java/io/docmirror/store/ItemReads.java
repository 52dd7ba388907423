package io.docmirror.store;

import io.docmirror.store.internal.ContainerState;
import io.docmirror.store.internal.KeyLayout;
import io.docmirror.store.internal.RocksStorage;
import io.docmirror.store.internal.StoredItem;
import io.docmirror.store.internal.TtlPolicy;

import java.nio.ByteBuffer;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Optional;

/**
 * Reads of items: point reads, a logical partition, a scan of a log partition in pages, and consistent snapshots of
 * a container for backfill ({@link EmbeddedStoreSnapshot}). They read what is durable: a write is seen once it was
 * acknowledged, never while it waits for its fsync. Expired items are left out.
 */
final class ItemReads {
    private final RocksStorage storage;
    private final ContainerCatalog catalog;
    private final Clock clock;

    ItemReads(RocksStorage storage, ContainerCatalog catalog, Clock clock) {
        this.storage = storage;
        this.catalog = catalog;
        this.clock = clock;
    }

    /** A point read; empty when the item does not exist or has expired. */
    Optional<Item> find(String container, PartitionKey partitionKey, String id) {
        ContainerState state = catalog.state(container);
        byte[] key = KeyLayout.itemKey(state.containerId(), state.logPartitionOf(partitionKey), partitionKey.encoded(),
                id);
        byte[] value = storage.get(storage.items(), key);
        if (value == null) {
            return Optional.empty();
        }
        StoredItem stored = StoredItem.decode(value);
        if (TtlPolicy.isExpired(state.expiresAt(stored), Math.floorDiv(clock.millis(), 1000))) {
            return Optional.empty();
        }
        return Optional.of(state.toItem(key, stored));
    }

    List<Item> readPartition(String container, PartitionKey partitionKey) {
        ContainerState state = catalog.state(container);
        byte[] prefix = KeyLayout.partitionPrefix(state.containerId(), state.logPartitionOf(partitionKey),
                partitionKey.encoded());
        long nowSeconds = Math.floorDiv(clock.millis(), 1000);
        List<Item> items = new ArrayList<>();
        try (var iterator = storage.iterate(storage.items(), prefix, KeyLayout.prefixEnd(prefix))) {
            for (; iterator.valid(); iterator.next()) {
                StoredItem stored = StoredItem.decode(iterator.value());
                if (!TtlPolicy.isExpired(state.expiresAt(stored), nowSeconds)) {
                    items.add(state.toItem(iterator.key(), stored));
                }
            }
        }
        return items;
    }

    ItemPage scanItems(String container, int logPartition, Optional<String> continuation, int maxItems) {
        ContainerState state = catalog.state(container);
        state.checkLogPartition(logPartition);
        if (maxItems < 1) {
            throw new StoreException(StoreErrorCode.BAD_REQUEST, "Cannot scan container " + container
                    + ": max items " + maxItems + " must be at least 1");
        }
        // Read the log end first: every change up to it is already in the items the iterator sees.
        long logEnd = state.logEnd(logPartition);
        byte[] prefix = KeyLayout.logPartitionPrefix(state.containerId(), logPartition);
        byte[] from = prefix;
        if (continuation.isPresent()) {
            from = decodeContinuation(container, prefix, continuation.get());
        }
        long nowSeconds = Math.floorDiv(clock.millis(), 1000);
        List<Item> items = new ArrayList<>();
        byte[] lastKey = null;
        try (var iterator = storage.iterate(storage.items(), from, KeyLayout.prefixEnd(prefix))) {
            for (; iterator.valid() && items.size() < maxItems; iterator.next()) {
                lastKey = iterator.key();
                StoredItem stored = StoredItem.decode(iterator.value());
                if (!TtlPolicy.isExpired(state.expiresAt(stored), nowSeconds)) {
                    items.add(state.toItem(lastKey, stored));
                }
            }
            boolean more = iterator.valid();
            Optional<String> next = more && lastKey != null
                    ? Optional.of(Base64.getUrlEncoder().withoutPadding().encodeToString(successor(lastKey)))
                    : Optional.empty();
            return new ItemPage(items, next, logEnd);
        }
    }

    /**
     * Opens a consistent snapshot of a container over all its log partitions (for backfill): exactly the changes up
     * to each partition's LSN in it, whatever is written while it is read. Close it when done.
     */
    StoreSnapshot openSnapshot(String container) {
        return EmbeddedStoreSnapshot.open(storage, catalog.state(container), Math.floorDiv(clock.millis(), 1000));
    }

    private static byte[] decodeContinuation(String container, byte[] prefix, String continuation) {
        byte[] key;
        try {
            key = Base64.getUrlDecoder().decode(continuation);
        } catch (IllegalArgumentException e) {
            throw new StoreException(StoreErrorCode.BAD_REQUEST,
                    "Cannot scan container " + container + ": continuation '" + continuation + "' is malformed", e);
        }
        if (key.length < prefix.length || !ByteBuffer.wrap(key, 0, prefix.length).equals(ByteBuffer.wrap(prefix))) {
            throw new StoreException(StoreErrorCode.BAD_REQUEST, "Cannot scan container " + container
                    + ": continuation '" + continuation + "' belongs to another container or log partition");
        }
        return key;
    }

    /** The smallest key after {@code key}: the key with a zero byte appended. */
    private static byte[] successor(byte[] key) {
        return Arrays.copyOf(key, key.length + 1);
    }
}
