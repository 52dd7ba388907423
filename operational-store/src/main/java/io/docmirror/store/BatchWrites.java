package io.docmirror.store;

import io.docmirror.store.internal.ContainerState;
import io.docmirror.store.internal.ValidatedDocument;
import io.docmirror.store.internal.WriteTransaction;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.IntStream;

import static io.docmirror.store.EmbeddedStore.MAX_BATCH_BYTES;
import static io.docmirror.store.EmbeddedStore.MAX_BATCH_OPERATIONS;

/**
 * Writes of many operations in one transaction: a transactional batch (all or nothing, one logical partition) and
 * bulk writes (any logical partitions of a container, each operation succeeding or failing alone). Documents are
 * validated before the locks are taken; the transaction then runs on the write path, so one fsync covers it.
 */
final class BatchWrites {
    private final ContainerCatalog catalog;
    private final WritePath writePath;

    BatchWrites(ContainerCatalog catalog, WritePath writePath) {
        this.catalog = catalog;
        this.writePath = writePath;
    }

    BatchResult executeBatch(String container, PartitionKey partitionKey, List<BatchOperation> operations) {
        ContainerState state = catalog.state(container);
        if (operations.isEmpty() || operations.size() > MAX_BATCH_OPERATIONS) {
            throw new StoreException(StoreErrorCode.BAD_REQUEST, "Cannot run batch on container " + container
                    + ": it has " + operations.size() + " operations; a batch has 1 to " + MAX_BATCH_OPERATIONS);
        }
        long bytes = operations.stream().mapToLong(BatchWrites::operationBytes).sum();
        if (bytes > MAX_BATCH_BYTES) {
            throw new StoreException(StoreErrorCode.TOO_LARGE, "Cannot run batch on container " + container
                    + ": its documents total " + bytes + " bytes, over the limit of " + MAX_BATCH_BYTES + " bytes (2 MB)");
        }
        // Validate every document before taking the lock; a bad one fails the batch like any failing operation.
        List<ValidatedDocument> documents = new ArrayList<>();
        for (int index = 0; index < operations.size(); index++) {
            BatchOperation operation = operations.get(index);
            try {
                documents.add(operation.document() == null ? null : validateForBatch(state, partitionKey, operation));
            } catch (StoreException e) {
                return failedBatch(operations.size(), index, e);
            }
        }
        return writePath.inPartitionAllOrNothing(state, partitionKey, transaction -> {
            List<BatchResult.OperationResult> results = new ArrayList<>();
            for (int index = 0; index < operations.size(); index++) {
                try {
                    results.add(apply(transaction, partitionKey, operations.get(index), documents.get(index)));
                } catch (StoreException e) {
                    return failedBatch(operations.size(), index, e);
                }
            }
            transaction.commit();
            return new BatchResult(results);
        });
    }

    BulkResult bulkWrite(String container, List<byte[]> documents, BulkOptions options) {
        return queueBulk(validateBulk(container, documents), options).awaitDurable();
    }

    /**
     * Checks the documents on every core (parsing and re-encoding is most of a bulk load's work, and each document is
     * checked on its own), without any lock.
     */
    ValidatedBulk validateBulk(String container, List<byte[]> documents) {
        return validate(catalog.state(container), documents);
    }

    /** Writes the valid documents in one transaction and queues it for the group commit, without waiting for it. */
    QueuedBulk queueBulk(ValidatedBulk bulk, BulkOptions options) {
        ContainerState state = catalog.state(bulk.container().name());
        if (state != bulk.container()) {
            // The container was deleted and created again since: its rules may have changed.
            bulk = validate(state, bulk.documents());
        }
        List<BulkResult.Failure> failures = new ArrayList<>();
        List<ValidatedDocument> valid = new ArrayList<>(bulk.size());
        List<Integer> positions = new ArrayList<>(bulk.size());
        for (ValidatedBulk.Validation validation : bulk.validations()) {
            if (validation.failure() == null) {
                valid.add(validation.document());
                positions.add(validation.index());
                continue;
            }
            failures.add(new BulkResult.Failure(validation.index(), validation.failure().httpStatus(),
                    validation.failure().getMessage()));
            if (options.stopAtFirstFailure()) {
                break;
            }
        }
        List<PartitionKey> partitionKeys = valid.stream().map(ValidatedDocument::partitionKey).toList();
        return new QueuedBulk(writePath.queueInPartitions(state, partitionKeys, transaction -> {
            transaction.readAhead(valid);
            int stored = 0;
            for (int index = 0; index < valid.size(); index++) {
                try {
                    transaction.write(valid.get(index), options.upsert());
                    stored++;
                } catch (StoreException e) {
                    rethrowIfPartial(e);
                    failures.add(new BulkResult.Failure(positions.get(index), e.httpStatus(), e.getMessage()));
                    if (options.stopAtFirstFailure()) {
                        break;
                    }
                }
            }
            failures.sort(Comparator.comparingInt(BulkResult.Failure::index));
            return new BulkResult(stored, failures);
        }));
    }

    private static ValidatedBulk validate(ContainerState state, List<byte[]> documents) {
        List<ValidatedBulk.Validation> validations = IntStream.range(0, documents.size()).parallel()
                .mapToObj(index -> {
                    try {
                        return new ValidatedBulk.Validation(index, state.validator().validate(documents.get(index)),
                                null);
                    } catch (StoreException e) {
                        return new ValidatedBulk.Validation(index, null, e);
                    }
                }).toList();
        return new ValidatedBulk(state, documents, validations);
    }

    List<BatchResult.OperationResult> executeBulk(String container, List<BulkOperation> operations) {
        ContainerState state = catalog.state(container);
        if (operations.isEmpty()) {
            return List.of();
        }
        // Validate every document before taking the locks; a bad one fails alone.
        BatchResult.OperationResult[] results = new BatchResult.OperationResult[operations.size()];
        List<ValidatedDocument> documents = new ArrayList<>(operations.size());
        for (int index = 0; index < operations.size(); index++) {
            BulkOperation bulk = operations.get(index);
            ValidatedDocument document = null;
            if (bulk.operation().document() != null) {
                try {
                    document = validateForBatch(state, bulk.partitionKey(), bulk.operation());
                } catch (StoreException e) {
                    results[index] = failed(index, e);
                }
            }
            documents.add(document);
        }
        writePath.inPartitions(state, operations.stream().map(BulkOperation::partitionKey).toList(), transaction -> {
            for (int index = 0; index < operations.size(); index++) {
                if (results[index] != null) {
                    continue;
                }
                BulkOperation bulk = operations.get(index);
                try {
                    results[index] = apply(transaction, bulk.partitionKey(), bulk.operation(), documents.get(index));
                } catch (StoreException e) {
                    rethrowIfPartial(e);
                    results[index] = failed(index, e);
                }
            }
            return null;
        });
        return List.of(results);
    }

    private BatchResult.OperationResult apply(WriteTransaction transaction, PartitionKey partitionKey,
            BatchOperation operation, ValidatedDocument document) {
        Precondition precondition = Precondition.ofNullable(operation.ifMatch());
        return switch (operation.type()) {
            case CREATE -> written(201, transaction.create(document));
            case UPSERT -> {
                Upserted upserted = transaction.upsert(document, precondition);
                yield written(upserted.httpStatus(), upserted.item());
            }
            case REPLACE -> written(200, transaction.replace(partitionKey, requireId(operation), document, precondition));
            case PATCH -> written(200, transaction.patch(partitionKey, requireId(operation),
                    operation.patch() == null ? List.of() : operation.patch(), precondition));
            case DELETE -> {
                transaction.delete(partitionKey, requireId(operation), precondition);
                yield new BatchResult.OperationResult(204, null, null, null);
            }
            case READ -> {
                Item item = transaction.read(partitionKey, requireId(operation)).orElseThrow(() -> new StoreException(
                        StoreErrorCode.NOT_FOUND, "Cannot read item '" + operation.id() + "': it does not exist"));
                yield new BatchResult.OperationResult(200, item.etag(), item, null);
            }
        };
    }

    private static BatchResult.OperationResult written(int status, Item item) {
        return new BatchResult.OperationResult(status, item.etag(), item, null);
    }

    private static String requireId(BatchOperation operation) {
        if (operation.id() == null) {
            throw new StoreException(StoreErrorCode.BAD_REQUEST,
                    "Cannot run batch operation " + operation.type().wireName() + ": it needs an id");
        }
        return operation.id();
    }

    private static ValidatedDocument validateForBatch(ContainerState state, PartitionKey partitionKey,
            BatchOperation operation) {
        ValidatedDocument document = state.validator().validate(operation.document().getBytes(StandardCharsets.UTF_8));
        if (!document.partitionKey().equals(partitionKey)) {
            throw new StoreException(StoreErrorCode.BAD_REQUEST, "Cannot write item '" + document.id()
                    + "' to container " + state.name() + ": it has partition key " + document.partitionKey().toWire()
                    + " but the operation is for " + partitionKey.toWire());
        }
        return document;
    }

    private static BatchResult failedBatch(int size, int failedIndex, StoreException failure) {
        List<BatchResult.OperationResult> results = new ArrayList<>();
        for (int index = 0; index < size; index++) {
            results.add(index == failedIndex
                    ? failed(index, failure)
                    : new BatchResult.OperationResult(StoreErrorCode.FAILED_DEPENDENCY.httpStatus(), null, null,
                            "Operation " + (index + 1) + " was not applied: operation " + (failedIndex + 1) + " failed"));
        }
        return new BatchResult(results);
    }

    /**
     * An operation refused by a rule (4xx) changed nothing, so the others of its transaction may still commit; a
     * failure of the store itself (5xx) may have left half an operation in the transaction, so none of it may.
     */
    private static void rethrowIfPartial(StoreException failure) {
        if (failure.httpStatus() >= 500) {
            throw failure;
        }
    }

    private static BatchResult.OperationResult failed(int index, StoreException failure) {
        return new BatchResult.OperationResult(failure.httpStatus(), null, null,
                "Operation " + (index + 1) + ": " + failure.getMessage());
    }

    private static long operationBytes(BatchOperation operation) {
        return operation.document() == null ? 0 : operation.document().getBytes(StandardCharsets.UTF_8).length;
    }
}
