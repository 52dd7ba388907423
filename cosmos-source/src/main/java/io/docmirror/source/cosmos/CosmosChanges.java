package io.docmirror.source.cosmos;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.PartitionKey;
import io.docmirror.store.PartitionKeyValue;
import io.docmirror.store.StoreJson;
import io.docmirror.store.changelog.ChangeEvent;
import io.docmirror.store.changelog.Operation;
import io.docmirror.store.internal.JsonPointer;

import java.util.List;

/**
 * The mirror's change events for what a Cosmos DB account's change feed gives. The documents arrive as the SDK's
 * trees, read exactly ({@link ExactSdkNumbers}), and are written back to JSON with their numbers' own text. The LSN
 * is the document's {@code _lsn} (latest version) or the change's {@code metadata.lsn} (all versions and deletes);
 * the commit time is the change's {@code crts}, or the document's {@code _ts}, in seconds, as Cosmos DB keeps it.
 */
final class CosmosChanges {
    private final ContainerProperties container;
    private final List<String> partitionKeyPath;

    CosmosChanges(ContainerProperties container) {
        this.container = container;
        this.partitionKeyPath = JsonPointer.parse(container.partitionKeyPath());
    }

    /**
     * An item's newest version from the latest-version feed. Whether it was created or replaced that feed does not
     * say: it is a REPLACE, as a snapshot's version of an item that may have changed.
     */
    ChangeEvent latestVersion(JsonNode document) {
        long lsn = number(document, "_lsn", document);
        return ChangeEvent.ofJson(container.id(), partitionKey(document), text(document, "id", document),
                Operation.REPLACE, lsn, number(document, "_ts", document) * 1000, false, json(document), null);
    }

    /**
     * A change of the all-versions-and-deletes feed: {@code {"current":...,"previous":...,"metadata":{...}}}; a
     * delete has no {@code current} and names its item in {@code metadata.id} and {@code metadata.partitionKey}.
     */
    ChangeEvent allVersions(JsonNode change) {
        JsonNode metadata = change.path("metadata");
        String operationType = text(metadata, "operationType", change);
        Operation operation = switch (operationType) {
            case "create" -> Operation.CREATE;
            case "replace" -> Operation.REPLACE;
            case "delete" -> Operation.DELETE;
            default -> throw new IllegalStateException("Cannot mirror a change of " + container.id() + " with "
                    + "operation type '" + operationType + "' (expected create, replace or delete): " + change);
        };
        JsonNode current = change.get("current");
        JsonNode previous = change.get("previous");
        long lsn = number(metadata, "lsn", change);
        long ts = metadata.has("crts") ? number(metadata, "crts", change)
                : current != null ? number(current, "_ts", change) : 0;
        if (operation == Operation.DELETE) {
            JsonNode id = metadata.has("id") ? metadata.get("id") : previous == null ? null : previous.get("id");
            if (id == null || !id.isTextual()) {
                throw new IllegalStateException("Cannot mirror a delete of " + container.id() + " that names no item "
                        + "(no metadata.id): " + change);
            }
            JsonNode keyHolder = metadata.has("partitionKey") ? metadata.get("partitionKey") : previous;
            return ChangeEvent.ofJson(container.id(), keyHolder == null ? PartitionKeyValue.NONE
                    : partitionKey(keyHolder), id.asText(), operation, lsn, ts * 1000,
                    metadata.path("timeToLiveExpired").asBoolean(false), null,
                    previous == null ? null : json(previous));
        }
        if (current == null || !current.isObject()) {
            throw new IllegalStateException("Cannot mirror a " + operationType + " of " + container.id()
                    + " without its document (no current): " + change);
        }
        return ChangeEvent.ofJson(container.id(), partitionKey(current), text(current, "id", change), operation, lsn,
                ts * 1000, false, json(current), previous == null || !previous.isObject() ? null : json(previous));
    }

    /** The value at the container's partition key path, as a change event carries it ({@code {}}: none). */
    private PartitionKeyValue partitionKey(JsonNode holder) {
        JsonNode value = holder;
        for (String segment : partitionKeyPath) {
            value = value.path(segment);
        }
        return PartitionKeyValue.of(PartitionKey.fromJson(value));
    }

    private static byte[] json(JsonNode document) {
        try {
            return StoreJson.mapper().writeValueAsBytes(document);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("Cannot write a document of the change feed: " + e.getMessage(), e);
        }
    }

    private long number(JsonNode holder, String field, JsonNode change) {
        JsonNode value = holder.get(field);
        if (value == null || !value.isIntegralNumber() || !value.canConvertToLong()) {
            throw new IllegalStateException("Cannot mirror a change of " + container.id() + ": its " + field
                    + " is not an integer: " + change);
        }
        return value.longValue();
    }

    private String text(JsonNode holder, String field, JsonNode change) {
        JsonNode value = holder.get(field);
        if (value == null || !value.isTextual()) {
            throw new IllegalStateException("Cannot mirror a change of " + container.id() + ": its " + field
                    + " is not a string: " + change);
        }
        return value.asText();
    }
}
