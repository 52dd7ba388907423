package io.docmirror.feed.derive;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.docmirror.store.PartitionKey;

import static java.util.Objects.requireNonNull;

/** A document a {@link TargetMapping} produced, with where it goes. */
public record TargetDocument(String container, PartitionKey partitionKey, ObjectNode document) {
    public TargetDocument {
        requireNonNull(container, "container is null");
        requireNonNull(partitionKey, "partitionKey is null");
        requireNonNull(document, "document is null");
    }

    public String id() {
        return document.get("id").textValue();
    }
}
