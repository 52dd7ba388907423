package io.docmirror.store;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;

/**
 * The operational store's API, with the same semantics in-process ({@link EmbeddedStore}) and over HTTP
 * ({@code io.docmirror.store.http.HttpStoreClient}). Documents go in as JSON bytes (strict UTF-8) and come out as
 * {@link Item}s with their system properties. Every failure is a {@link StoreException} whose code carries the HTTP
 * status Cosmos DB would give; when a call throws, nothing was changed.
 */
public interface StoreClient extends AutoCloseable {
    // Containers

    /** @throws StoreException 409 when a container of that id exists */
    ContainerProperties createContainer(ContainerProperties properties);

    /** @throws StoreException 404 when there is no such container */
    ContainerProperties readContainer(String container);

    List<ContainerProperties> listContainers();

    /**
     * Replaces a container's settings, as Cosmos DB replaces a container's: {@code properties} are the settings it
     * should have (typically those read, with a TTL changed). The default TTL becomes the one given (null: TTL off),
     * and items expire by it at once, those already stored included; the analytical TTL becomes the one given, or
     * stays when it is null (a mirrored container's cannot become 0). The id, the partition key path, the log
     * partitions and the partition hashing cannot change. The container's etag changes with every replace.
     *
     * @param container the container to replace; {@code properties.id()} must be its id
     * @param precondition {@link Precondition#ifMatch} the container's {@link ContainerProperties#etag()} to replace
     *        only settings that have not changed since they were read
     * @return the container's settings after the replace, with its new etag
     * @throws StoreException 404 when there is no such container, 400 when the replace changes what cannot change,
     *         412 when the precondition fails
     */
    ContainerProperties replaceContainer(String container, ContainerProperties properties, Precondition precondition);

    /** Deletes the container with its items and change log. @throws StoreException 404 when there is none */
    void deleteContainer(String container);

    // Items

    /** @throws StoreException 409 when an item with that id exists in its logical partition */
    default Item createItem(String container, byte[] json) {
        return createItem(container, json, Optional.empty());
    }

    /**
     * Creates the item; given a stated partition key, only when the document's is that one (Cosmos DB refuses a write
     * whose partition key header contradicts its document), checked as the store reads the document for the write.
     *
     * @throws StoreException 409 when an item with that id exists in its logical partition, 400 when the document's
     *         partition key is not the stated one
     */
    Item createItem(String container, byte[] json, Optional<PartitionKey> statedPartitionKey);

    /** Creates the item or replaces it whole, saying which it did. */
    default Upserted upsert(String container, byte[] json, Precondition precondition) {
        return upsert(container, json, precondition, Optional.empty());
    }

    /**
     * Creates the item or replaces it whole, saying which it did; given a stated partition key, only when the
     * document's is that one, as {@link #createItem(String, byte[], Optional)} checks it.
     */
    Upserted upsert(String container, byte[] json, Precondition precondition, Optional<PartitionKey> statedPartitionKey);

    /** Creates the item or replaces it whole. */
    default Item upsertItem(String container, byte[] json, Precondition precondition) {
        return upsert(container, json, precondition).item();
    }

    /** @throws StoreException 404 when the item does not exist, 412 when the precondition fails */
    Item replaceItem(String container, PartitionKey partitionKey, String id, byte[] json, Precondition precondition);

    /** @throws StoreException 400 when an operation cannot apply (e.g. replace or remove of a missing path) */
    Item patchItem(String container, PartitionKey partitionKey, String id, List<PatchOperation> operations,
            Precondition precondition);

    /** @throws StoreException 404 when the item does not exist, 412 when the precondition fails */
    void deleteItem(String container, PartitionKey partitionKey, String id, Precondition precondition);

    /** A point read; empty when the item does not exist or has expired. */
    Optional<Item> findItem(String container, PartitionKey partitionKey, String id);

    /** Every live item of one logical partition, in id order. */
    List<Item> readPartition(String container, PartitionKey partitionKey);

    /**
     * A cross-partition scan, one log partition (feed range) at a time, for backfill.
     *
     * @param continuation where to go on from, as returned by the previous page; empty for the first page
     */
    ItemPage scanItems(String container, int logPartition, Optional<String> continuation, int maxItems);

    /** Runs the operations all or nothing, in order, on one logical partition (at most 100 operations, 2 MB). */
    BatchResult executeBatch(String container, PartitionKey partitionKey, List<BatchOperation> operations);

    /** Writes many documents in one durable commit; each document succeeds or fails alone. */
    BulkResult bulkWrite(String container, List<byte[]> documents, BulkOptions options);

    /**
     * Runs operations on any logical partitions of one container in one durable commit. Unlike a batch, each operation
     * succeeds or fails alone (with its own precondition) and carries its own result, in request order; operations on
     * the same item see the effects of the ones before them.
     */
    List<BatchResult.OperationResult> executeBulk(String container, List<BulkOperation> operations);

    // The change log

    /**
     * Events of one log partition with LSNs greater than {@code afterLsn}, oldest first.
     *
     * @throws StoreException 404 for an unknown container, 400 for a log partition out of range
     */
    ChangeLogPage readChangeLog(String container, int logPartition, long afterLsn, int maxEvents);

    @Override
    void close();

    // Conveniences

    default Item createItem(String container, String json) {
        return createItem(container, json.getBytes(StandardCharsets.UTF_8));
    }

    default Item upsertItem(String container, String json) {
        return upsertItem(container, json.getBytes(StandardCharsets.UTF_8), Precondition.NONE);
    }

    default Item replaceItem(String container, PartitionKey partitionKey, String id, String json) {
        return replaceItem(container, partitionKey, id, json.getBytes(StandardCharsets.UTF_8), Precondition.NONE);
    }

    default Item patchItem(String container, PartitionKey partitionKey, String id, List<PatchOperation> operations) {
        return patchItem(container, partitionKey, id, operations, Precondition.NONE);
    }

    default void deleteItem(String container, PartitionKey partitionKey, String id) {
        deleteItem(container, partitionKey, id, Precondition.NONE);
    }

    /** @throws StoreException 404 when the item does not exist or has expired */
    default Item readItem(String container, PartitionKey partitionKey, String id) {
        return findItem(container, partitionKey, id).orElseThrow(() -> new StoreException(StoreErrorCode.NOT_FOUND,
                "Cannot read item '" + id + "' in container " + container + " with partition key "
                        + partitionKey.toWire() + ": it does not exist"));
    }
}
