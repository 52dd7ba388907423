package io.docmirror.store;

/**
 * A bulk write queued for the store's group commit ({@link EmbeddedStore#queueBulk}): its documents have their LSNs
 * and the store's next writes build on them, but nothing is durable or visible to readers until
 * {@link #awaitDurable()} returns.
 */
public final class QueuedBulk {
    private final WritePath.Queued<BulkResult> queued;

    QueuedBulk(WritePath.Queued<BulkResult> queued) {
        this.queued = queued;
    }

    /**
     * What the write will have done once durable: the documents stored and those refused. A document refused here
     * is refused whatever happens to the write; the ones counted as written are stored only if
     * {@link #awaitDurable()} returns.
     */
    public BulkResult outcome() {
        return queued.result();
    }

    /**
     * Waits until the write is durable (writing the queued group itself when no other writer is).
     *
     * @throws StoreException 503 when the group commit that holds it failed: none of it is stored
     */
    public BulkResult awaitDurable() {
        return queued.awaitDurable();
    }
}
