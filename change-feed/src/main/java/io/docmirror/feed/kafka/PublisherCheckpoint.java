package io.docmirror.feed.kafka;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.StoreJson;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

import static java.util.Objects.requireNonNull;

/**
 * Where a container's publisher is, as it commits it to the offsets topic with each transaction: the feed's
 * continuation, and the {@code _rid} of the container it read, so that a publisher of a container deleted and
 * created again under the same name starts the new one from its first change instead of from the old one's
 * positions. Earlier versions committed the continuation alone, read here with no {@code _rid}.
 *
 * @param containerRid the container's {@code _rid}; null when not known (an earlier version's checkpoint)
 */
record PublisherCheckpoint(String containerRid, String continuation) {
    PublisherCheckpoint {
        requireNonNull(continuation, "continuation is null");
    }

    /** Whether this checkpoint is a position in the container of {@code resourceId} (true when either is unknown). */
    boolean belongsTo(String resourceId) {
        return ContainerProperties.mayBeSameContainer(containerRid, resourceId);
    }

    byte[] encode() {
        ObjectNode json = StoreJson.mapper().createObjectNode();
        json.put("containerRid", containerRid);
        json.put("continuation", continuation);
        try {
            return StoreJson.mapper().writeValueAsBytes(json);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write the publisher checkpoint " + this, e);
        }
    }

    /** @throws IllegalArgumentException when the bytes are neither form of a checkpoint */
    static PublisherCheckpoint decode(byte[] bytes) {
        String text = new String(bytes, StandardCharsets.UTF_8);
        if (!text.startsWith("{")) {
            return new PublisherCheckpoint(null, text);
        }
        try {
            JsonNode json = StoreJson.mapper().readTree(text);
            JsonNode continuation = json.get("continuation");
            if (continuation == null || !continuation.isTextual()) {
                throw new IllegalArgumentException("A publisher checkpoint has no continuation: " + text);
            }
            JsonNode rid = json.get("containerRid");
            return new PublisherCheckpoint(rid == null || rid.isNull() ? null : rid.asText(), continuation.asText());
        } catch (IOException e) {
            throw new IllegalArgumentException("A publisher checkpoint is not JSON: " + text, e);
        }
    }

    @Override
    public String toString() {
        return Objects.toString(containerRid, "(container unknown)") + " at " + continuation;
    }
}
