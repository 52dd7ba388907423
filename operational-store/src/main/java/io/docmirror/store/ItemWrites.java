package io.docmirror.store;

import io.docmirror.store.internal.ContainerState;
import io.docmirror.store.internal.ValidatedDocument;

import java.util.List;
import java.util.Optional;

/** Writes of one item: each validated before it takes its log partition's lock, then run on the write path. */
final class ItemWrites {
    private final ContainerCatalog catalog;
    private final WritePath writePath;

    ItemWrites(ContainerCatalog catalog, WritePath writePath) {
        this.catalog = catalog;
        this.writePath = writePath;
    }

    Item create(String container, byte[] json, Optional<PartitionKey> statedPartitionKey) {
        ContainerState state = catalog.state(container);
        ValidatedDocument document = validate(state, json, statedPartitionKey);
        return writePath.inPartition(state, document.partitionKey(), transaction -> transaction.create(document));
    }

    Upserted upsert(String container, byte[] json, Precondition precondition,
            Optional<PartitionKey> statedPartitionKey) {
        ContainerState state = catalog.state(container);
        ValidatedDocument document = validate(state, json, statedPartitionKey);
        return writePath.inPartition(state, document.partitionKey(),
                transaction -> transaction.upsert(document, precondition));
    }

    /** The document read once: validated, and its partition key held against the one the writer states, if any. */
    private static ValidatedDocument validate(ContainerState state, byte[] json,
            Optional<PartitionKey> statedPartitionKey) {
        ValidatedDocument document = state.validator().validate(json);
        if (statedPartitionKey.isPresent() && !statedPartitionKey.get().equals(document.partitionKey())) {
            throw new StoreException(StoreErrorCode.BAD_REQUEST, "Cannot write item to container " + state.name()
                    + ": the document's partition key " + document.partitionKey().toWire() + " (at "
                    + state.properties().partitionKeyPath() + ") differs from the stated partition key "
                    + statedPartitionKey.get().toWire() + " (over HTTP, the x-ms-documentdb-partitionkey header)");
        }
        return document;
    }

    Item replace(String container, PartitionKey partitionKey, String id, byte[] json, Precondition precondition) {
        ContainerState state = catalog.state(container);
        ValidatedDocument document = state.validator().validate(json);
        return writePath.inPartition(state, partitionKey,
                transaction -> transaction.replace(partitionKey, id, document, precondition));
    }

    Item patch(String container, PartitionKey partitionKey, String id, List<PatchOperation> operations,
            Precondition precondition) {
        ContainerState state = catalog.state(container);
        return writePath.inPartition(state, partitionKey,
                transaction -> transaction.patch(partitionKey, id, operations, precondition));
    }

    void delete(String container, PartitionKey partitionKey, String id, Precondition precondition) {
        ContainerState state = catalog.state(container);
        writePath.inPartition(state, partitionKey, transaction -> {
            transaction.delete(partitionKey, id, precondition);
            return null;
        });
    }
}
