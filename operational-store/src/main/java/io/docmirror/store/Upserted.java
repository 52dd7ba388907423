package io.docmirror.store;

import static java.util.Objects.requireNonNull;

/**
 * What an upsert did: the item as stored, and whether the write created it (no live item had its id and partition
 * key) or replaced one. Cosmos DB answers the two with different statuses (201, 200); the write knows which it did,
 * so no one has to read the change log back to tell.
 *
 * @param item the item as stored
 * @param created true when the upsert created the item, false when it replaced one
 */
public record Upserted(Item item, boolean created) {
    public Upserted {
        requireNonNull(item, "item is null");
    }

    /** The HTTP status of the write: 201 when it created the item, 200 when it replaced one. */
    public int httpStatus() {
        return created ? 201 : 200;
    }
}
