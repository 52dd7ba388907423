package io.docmirror.store;

/**
 * How a bulk write treats its documents.
 *
 * @param upsert replace existing items; when false, a document whose id exists fails with 409
 * @param stopAtFirstFailure store only the documents before the first one that fails
 */
public record BulkOptions(boolean upsert, boolean stopAtFirstFailure) {
    public static final BulkOptions CREATE = new BulkOptions(false, false);
    public static final BulkOptions UPSERT = new BulkOptions(true, false);
}
