package io.docmirror.store;

import io.docmirror.store.internal.ContainerState;
import io.docmirror.store.internal.ValidatedDocument;

import java.util.List;

/** Writes of one item: each validated before it takes its log partition's lock, then run on the write path. */
final class ItemWrites {
    private final ContainerCatalog catalog;
    private final WritePath writePath;

    ItemWrites(ContainerCatalog catalog, WritePath writePath) {
        this.catalog = catalog;
        this.writePath = writePath;
    }

    Item create(String container, byte[] json) {
        ContainerState state = catalog.state(container);
        ValidatedDocument document = state.validator().validate(json);
        return writePath.inPartition(state, document.partitionKey(), transaction -> transaction.create(document));
    }

    Upserted upsert(String container, byte[] json, Precondition precondition) {
        ContainerState state = catalog.state(container);
        ValidatedDocument document = state.validator().validate(json);
        return writePath.inPartition(state, document.partitionKey(),
                transaction -> transaction.upsert(document, precondition));
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
