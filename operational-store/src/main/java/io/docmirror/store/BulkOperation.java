package io.docmirror.store;

import static java.util.Objects.requireNonNull;

/**
 * One operation of {@link StoreClient#executeBulk}: a {@link BatchOperation} with the partition key it is for, so that
 * one bulk request can span many logical partitions (as Cosmos DB's bulk mode does).
 */
public record BulkOperation(PartitionKey partitionKey, BatchOperation operation) {
    public BulkOperation {
        requireNonNull(partitionKey, "partitionKey is null");
        requireNonNull(operation, "operation is null");
    }
}
