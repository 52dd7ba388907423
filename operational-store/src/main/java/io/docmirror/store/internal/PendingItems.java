package io.docmirror.store.internal;

import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A container's items as the writes queued for the group commit left them, until the commit that holds them is
 * durable. The next write of the same log partition must build on them (its LSN, an item's creation, If-Match);
 * readers never see them: an item is visible only once it is durable.
 */
public final class PendingItems {
    /** One queued version of an item; empty for an item the write deletes. Compared by identity. */
    public static final class Version {
        private final Optional<StoredItem> item;

        Version(Optional<StoredItem> item) {
            this.item = item;
        }

        Optional<StoredItem> item() {
            return item;
        }
    }

    private final ConcurrentHashMap<ItemKey, Version> versions = new ConcurrentHashMap<>();

    /** The newest queued version of the item under {@code key}, or null when no queued write touches it. */
    Version get(ItemKey key) {
        return versions.get(key);
    }

    Version put(ItemKey key, Optional<StoredItem> item) {
        Version version = new Version(item);
        versions.put(key, version);
        return version;
    }

    /** Forgets a version once it is durable, unless a later queued write has replaced it. */
    void durable(ItemKey key, Version version) {
        versions.remove(key, version);
    }
}
