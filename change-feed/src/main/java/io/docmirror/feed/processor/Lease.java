package io.docmirror.feed.processor;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.docmirror.store.Item;

import java.nio.charset.StandardCharsets;

/**
 * The lease of one feed range, as stored in the lease container: who owns it until when, and the checkpoint.
 *
 * @param group {@code <container>:<processor>}, the partition key of all of a processor's leases
 * @param owner the worker holding it, {@code null} when released
 * @param expiresAtMillis when the owner's claim lapses unless renewed
 * @param continuation the checkpoint: the feed range's position after the last handled batch ({@code null} before
 *     the first)
 * @param etag the lease item's ETag, for optimistic concurrency: two workers never both win a lease
 */
record Lease(String group, String container, int logPartition, String owner, long expiresAtMillis,
        String continuation, String etag) {
    static String id(String group, int logPartition) {
        return group + ":" + logPartition;
    }

    String id() {
        return id(group, logPartition);
    }

    boolean isFree(long nowMillis) {
        return owner == null || expiresAtMillis <= nowMillis;
    }

    Lease withOwner(String newOwner, long newExpiresAtMillis) {
        return new Lease(group, container, logPartition, newOwner, newExpiresAtMillis, continuation, etag);
    }

    Lease withContinuation(String newContinuation) {
        return new Lease(group, container, logPartition, owner, expiresAtMillis, newContinuation, etag);
    }

    byte[] toJson() {
        ObjectNode json = JsonNodeFactory.instance.objectNode();
        json.put("id", id());
        json.put("group", group);
        json.put("container", container);
        json.put("logPartition", logPartition);
        json.put("owner", owner);
        json.put("expiresAt", expiresAtMillis);
        json.put("continuation", continuation);
        return json.toString().getBytes(StandardCharsets.UTF_8);
    }

    static Lease fromItem(Item item) {
        ObjectNode json = item.tree();
        return new Lease(json.get("group").textValue(), json.get("container").textValue(),
                json.get("logPartition").intValue(), json.path("owner").textValue(), json.get("expiresAt").longValue(),
                json.path("continuation").textValue(), item.etag());
    }
}
