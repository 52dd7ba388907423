package io.docmirror.mirror.iceberg;

/**
 * The steps of one batch's commit, in the order they happen: the points where a crash can cut a commit short, each
 * named so that a crash test can stop the writer there ({@link CommitObserver}). Until {@link #CATALOG_COMMITTED},
 * everything a batch wrote is unreachable from the catalog, and readers see the previous batch.
 */
enum CommitStep {
    /**
     * A compaction's rows are rewritten off the daemon's thread (reached on the compaction's thread); a batch that
     * begins once it is done commits it.
     */
    COMPACTION_REWRITTEN,
    /** The batch's flattener schema file is written (only in a batch that changes the schema). */
    FLATTENER_SCHEMA_WRITTEN,
    /** A table's data files are complete. */
    DATA_FILES_WRITTEN,
    /** A table's deletion vectors are written (none when the batch deletes no row of it; a compaction has none). */
    DELETION_VECTORS_WRITTEN,
    /** A table's manifests and manifest list are written. */
    MANIFESTS_WRITTEN,
    /** A table's next metadata is staged in the batch; in the embedded catalog, its metadata file is written. */
    METADATA_STAGED,
    /**
     * What the batch changes in the document index is recorded in it, to be applied once the catalog takes the batch
     * (not in a backfill, which indexes nothing).
     */
    INDEX_PREPARED,
    /** The embedded catalog's SQL transaction is open. */
    CATALOG_TRANSACTION_BEGUN,
    /** A table's pointer moved to its staged metadata inside the SQL transaction (or was removed, for a drop). */
    POINTER_MOVED,
    /** The catalog commit is about to be sent: the SQL COMMIT, or the REST catalog's one commit request. */
    CATALOG_COMMITTING,
    /** The catalog took the batch: readers see it from now on. */
    CATALOG_COMMITTED,
    /** The writer has recorded the commit, and the batch's commit returns (acknowledges it) next. */
    BATCH_COMMITTED
}
