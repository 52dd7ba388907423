package io.docmirror.store.internal;

import java.util.Arrays;

/**
 * An item's RocksDB key ({@link KeyLayout#itemKey}) as a map key, hashed once: a bulk write looks each of its
 * thousands of keys up in several maps (read ahead, written, queued), and hashing the bytes each time showed.
 */
final class ItemKey {
    private final byte[] bytes;
    private final int hash;

    ItemKey(byte[] bytes) {
        this.bytes = bytes;
        this.hash = Arrays.hashCode(bytes);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof ItemKey key && hash == key.hash && Arrays.equals(bytes, key.bytes);
    }

    @Override
    public int hashCode() {
        return hash;
    }
}
