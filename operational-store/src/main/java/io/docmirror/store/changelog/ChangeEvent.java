package io.docmirror.store.changelog;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * One change to one item: the contract every module shares (DESIGN.md, "The change event").
 *
 * @param container the container's id
 * @param partitionKey the item's partition key value as JSON ({@code {}} for an item without one)
 * @param id the item's id
 * @param lsn strictly increasing, without gaps, within the item's log partition
 * @param ts commit time, epoch milliseconds (the document's {@code _ts} is the same instant in seconds)
 * @param ttlExpired true when a DELETE came from TTL expiry rather than from a user
 * @param document the item after the change, system properties included; empty for DELETE
 * @param previous the item before the change, for REPLACE and DELETE; empty for CREATE
 */
public record ChangeEvent(
        String container,
        JsonNode partitionKey,
        String id,
        Operation operation,
        long lsn,
        long ts,
        boolean ttlExpired,
        Optional<ObjectNode> document,
        Optional<ObjectNode> previous) {
    public ChangeEvent {
        requireNonNull(container, "container is null");
        requireNonNull(partitionKey, "partitionKey is null");
        requireNonNull(id, "id is null");
        requireNonNull(operation, "operation is null");
        requireNonNull(document, "document is null");
        requireNonNull(previous, "previous is null");
        if (operation == Operation.DELETE && document.isPresent()) {
            throw new IllegalArgumentException("a DELETE event of " + container + "/" + id + " has no document");
        }
        if (operation != Operation.DELETE && document.isEmpty()) {
            throw new IllegalArgumentException("a " + operation + " event of " + container + "/" + id
                    + " needs the document");
        }
        if (ttlExpired && operation != Operation.DELETE) {
            throw new IllegalArgumentException("only a DELETE event can be a TTL expiry: " + container + "/" + id);
        }
    }
}
