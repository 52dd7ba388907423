package io.docmirror.store.changelog;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.docmirror.store.PartitionKeyValue;

import java.util.Objects;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * One change to one item: the contract every module shares (docs/architecture.md, "The change feed").
 *
 * <p>An event read from the log carries its documents as the JSON bytes the store wrote; {@link #document()} and
 * {@link #previous()} parse them on first use, so a consumer that only forwards events never pays for parsing.
 */
public final class ChangeEvent {
    private final String container;
    private final PartitionKeyValue partitionKey;
    private final String id;
    private final Operation operation;
    private final long lsn;
    private final long ts;
    private final boolean ttlExpired;
    private final DocumentImage document;
    private final DocumentImage previous;

    /**
     * @param container the container's id
     * @param partitionKey the item's partition key value ({@link PartitionKeyValue#NONE} for an item without one)
     * @param id the item's id
     * @param lsn strictly increasing, without gaps, within the item's log partition
     * @param ts commit time, epoch milliseconds (the document's {@code _ts} is the same instant in seconds)
     * @param ttlExpired true when a DELETE came from TTL expiry rather than from a user
     * @param document the item after the change, system properties included; empty for DELETE
     * @param previous the item before the change, for REPLACE and DELETE; empty for CREATE
     */
    public ChangeEvent(String container, PartitionKeyValue partitionKey, String id, Operation operation, long lsn,
            long ts, boolean ttlExpired, Optional<ObjectNode> document, Optional<ObjectNode> previous) {
        this(container, partitionKey, id, operation, lsn, ts, ttlExpired,
                requireNonNull(document, "document is null").map(DocumentImage::ofTree).orElse(null),
                requireNonNull(previous, "previous is null").map(DocumentImage::ofTree).orElse(null));
    }

    /**
     * The change that made an item's current version, as a snapshot of the store reads it (for backfill): a CREATE
     * when the item has not changed since it was created, otherwise a REPLACE, without the previous image.
     *
     * @param json the item as stored; the event keeps the array, so the caller must not change it afterwards
     */
    public static ChangeEvent ofCurrentVersion(String container, PartitionKeyValue partitionKey, String id,
            boolean created, long lsn, long ts, byte[] json) {
        return new ChangeEvent(container, partitionKey, id, created ? Operation.CREATE : Operation.REPLACE, lsn, ts,
                false, DocumentImage.ofJson(json), null);
    }

    /**
     * An event whose documents arrive as JSON bytes (from another encoding of the event, such as the Kafka
     * envelope): they are kept as given, so numbers keep their exact text, and parsed only when asked for.
     *
     * @param document the item's JSON after the change, or null; the event keeps the array
     * @param previous the item's JSON before the change, or null; the event keeps the array
     */
    public static ChangeEvent ofJson(String container, PartitionKeyValue partitionKey, String id, Operation operation,
            long lsn, long ts, boolean ttlExpired, byte[] document, byte[] previous) {
        return new ChangeEvent(container, partitionKey, id, operation, lsn, ts, ttlExpired,
                document == null ? null : DocumentImage.ofJson(document),
                previous == null ? null : DocumentImage.ofJson(previous));
    }

    ChangeEvent(String container, PartitionKeyValue partitionKey, String id, Operation operation, long lsn, long ts,
            boolean ttlExpired, DocumentImage document, DocumentImage previous) {
        this.container = requireNonNull(container, "container is null");
        this.partitionKey = requireNonNull(partitionKey, "partitionKey is null");
        this.id = requireNonNull(id, "id is null");
        this.operation = requireNonNull(operation, "operation is null");
        this.lsn = lsn;
        this.ts = ts;
        this.ttlExpired = ttlExpired;
        this.document = document;
        this.previous = previous;
        if (operation == Operation.DELETE && document != null) {
            throw new IllegalArgumentException("a DELETE event of " + container + "/" + id + " has no document");
        }
        if (operation != Operation.DELETE && document == null) {
            throw new IllegalArgumentException("a " + operation + " event of " + container + "/" + id
                    + " needs the document");
        }
        if (ttlExpired && operation != Operation.DELETE) {
            throw new IllegalArgumentException("only a DELETE event can be a TTL expiry: " + container + "/" + id);
        }
    }

    public String container() {
        return container;
    }

    /** The item's partition key value, {@link PartitionKeyValue#NONE} for an item without one. */
    public PartitionKeyValue partitionKey() {
        return partitionKey;
    }

    public String id() {
        return id;
    }

    public Operation operation() {
        return operation;
    }

    public long lsn() {
        return lsn;
    }

    public long ts() {
        return ts;
    }

    public boolean ttlExpired() {
        return ttlExpired;
    }

    /** The item after the change, parsed on first use; empty for DELETE. */
    public Optional<ObjectNode> document() {
        return document == null ? Optional.empty() : Optional.of(document.tree());
    }

    /** The item after the change as the store wrote it (numbers with their exact text); do not modify the array. */
    public Optional<byte[]> documentJson() {
        return document == null ? Optional.empty() : Optional.of(document.json());
    }

    /** The item before the change, parsed on first use; empty for CREATE and where the store kept none. */
    public Optional<ObjectNode> previous() {
        return previous == null ? Optional.empty() : Optional.of(previous.tree());
    }

    /** The item before the change as the store wrote it; do not modify the array. */
    public Optional<byte[]> previousJson() {
        return previous == null ? Optional.empty() : Optional.of(previous.json());
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof ChangeEvent event
                && container.equals(event.container)
                && partitionKey.equals(event.partitionKey)
                && id.equals(event.id)
                && operation == event.operation
                && lsn == event.lsn
                && ts == event.ts
                && ttlExpired == event.ttlExpired
                && Objects.equals(document, event.document)
                && Objects.equals(previous, event.previous);
    }

    @Override
    public int hashCode() {
        return Objects.hash(container, id, lsn);
    }

    @Override
    public String toString() {
        return "ChangeEvent[" + container + "/" + partitionKey + "/" + id + " " + operation + " lsn=" + lsn
                + " ts=" + ts + (ttlExpired ? " ttlExpired" : "") + "]";
    }
}
