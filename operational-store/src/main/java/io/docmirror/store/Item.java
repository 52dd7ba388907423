package io.docmirror.store;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.nio.charset.StandardCharsets;

import static java.util.Objects.requireNonNull;

/**
 * An item as stored: its JSON text with the system properties {@code _rid}, {@code _etag}, {@code _ts} and
 * {@code _lsn} added by the store.
 *
 * @param json the stored JSON, numbers exactly as they were written
 */
public record Item(String id, PartitionKey partitionKey, String etag, long lsn, String json) {
    public Item {
        requireNonNull(id, "id is null");
        requireNonNull(partitionKey, "partitionKey is null");
        requireNonNull(etag, "etag is null");
        requireNonNull(json, "json is null");
    }

    /**
     * The item parsed into a tree whose numbers are exact and write back exactly as stored (see
     * {@link StoreJson#numberNode}): {@code -0.0} stays {@code -0.0}, {@code 1e2} stays {@code 1e2}.
     */
    public ObjectNode tree() {
        try {
            return (ObjectNode) StoreJson.mapper().readTree(json);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("Cannot parse stored item " + id + ": " + e.getOriginalMessage(), e);
        }
    }

    public byte[] jsonBytes() {
        return json.getBytes(StandardCharsets.UTF_8);
    }
}
