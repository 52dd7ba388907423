package io.docmirror.store;

import io.docmirror.store.internal.ContainerState;
import io.docmirror.store.internal.KeyLayout;
import io.docmirror.store.internal.RocksStorage;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The TTL reaper: physically removes expired items (reads stop seeing them as soon as they expire), each with a
 * DELETE marked {@code ttlExpired} in the change log, found through the expiry index. Each log partition's removals
 * are one transaction on the write path.
 */
final class TtlReaper {
    private final RocksStorage storage;
    private final ContainerCatalog catalog;
    private final WritePath writePath;
    private final Clock clock;

    TtlReaper(RocksStorage storage, ContainerCatalog catalog, WritePath writePath, Clock clock) {
        this.storage = storage;
        this.catalog = catalog;
        this.writePath = writePath;
        this.clock = clock;
    }

    /**
     * Removes up to {@code maxItems} expired items of every container.
     *
     * @return how many items were removed
     */
    int reapExpired(int maxItems) {
        int removed = 0;
        long nowSeconds = Math.floorDiv(clock.millis(), 1000);
        for (ContainerState state : catalog.states()) {
            if (state.properties().defaultTtl() == null || removed >= maxItems) {
                continue;
            }
            removed += reap(state, expiredByLogPartition(state, nowSeconds, maxItems - removed));
        }
        return removed;
    }

    /** Up to {@code maxItems} entries of the expiry index that are due, by the log partition of their item. */
    private Map<Integer, List<byte[]>> expiredByLogPartition(ContainerState state, long nowSeconds, int maxItems) {
        byte[] from = KeyLayout.containerPrefix(state.containerId());
        byte[] until = KeyLayout.expiryKey(state.containerId(), nowSeconds + 1, new byte[0]);
        Map<Integer, List<byte[]>> byPartition = new TreeMap<>();
        try (var iterator = storage.iterate(storage.expiry(), from, until)) {
            for (int count = 0; iterator.valid() && count < maxItems; iterator.next(), count++) {
                byte[] itemKey = KeyLayout.expiryItemKey(iterator.key());
                byPartition.computeIfAbsent(KeyLayout.itemLogPartition(itemKey), partition -> new ArrayList<>())
                        .add(iterator.key());
            }
        }
        return byPartition;
    }

    private int reap(ContainerState state, Map<Integer, List<byte[]>> expiryKeysByPartition) {
        int removed = 0;
        for (Map.Entry<Integer, List<byte[]>> entry : expiryKeysByPartition.entrySet()) {
            if (state.isDeleted()) {
                // Deleted since the index was read: its items went with it.
                break;
            }
            removed += writePath.inLogPartitions(state, List.of(entry.getKey()), transaction -> {
                int expired = 0;
                for (byte[] expiryKey : entry.getValue()) {
                    if (transaction.expire(KeyLayout.expiryItemKey(expiryKey))) {
                        expired++;
                    }
                    else {
                        transaction.dropExpiryEntry(expiryKey);
                    }
                }
                return expired;
            });
        }
        return removed;
    }
}
