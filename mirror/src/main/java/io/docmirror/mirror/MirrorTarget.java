package io.docmirror.mirror;

import io.docmirror.mirror.source.Checkpoint;
import io.docmirror.store.changelog.ChangeEvent;

/**
 * Where one container's streamed changes are committed (its tables, {@link io.docmirror.mirror.iceberg.ContainerTables}):
 * batches of changes, each ending at a checkpoint of the change source, committed atomically with it.
 */
public interface MirrorTarget extends AutoCloseable {
    String container();

    /** Where the next batch's changes start in the source. */
    Checkpoint checkpoint();

    /** Where the mirror stands, for messages: {@code batch 42}, {@code its start}. */
    String position();

    /**
     * Whether this target must be closed and opened again before its next batch: a commit's outcome was unknown (or
     * its bookkeeping failed after the catalog took it), so what it holds may differ from its committed tables.
     */
    boolean needsReopening();

    /** Starts the next batch; one at a time. */
    Batch begin();

    /**
     * Upkeep between batches (the analytical TTL, compaction, expiry of old snapshots), when due; the caller has no
     * batch open.
     *
     * @return whether a compaction was committed
     */
    boolean maintain();

    /**
     * {@link #maintain}, with the slow part of a compaction (rewriting rows) off the caller's thread, so that the
     * caller goes on committing batches meanwhile (the daemon). Once rewritten, the compaction is committed with the
     * next batch that begins, or by a later call when no batch was committed since the last one.
     *
     * @return whether a compaction was committed
     */
    boolean maintainInBackground();

    @Override
    void close();

    /** The changes of one commit. Either {@link #commit} or {@link #abort} ends it. */
    interface Batch {
        void add(ChangeEvent event);

        long events();

        /**
         * Makes the batch visible, durably, ending at {@code checkpoint}. On failure the batch is abandoned: either
         * nothing of it became visible and the next one starts from the last commit, or its outcome is unknown and
         * the target {@link #needsReopening}.
         */
        Committed commit(Checkpoint checkpoint);

        /** Abandons the batch: nothing of it becomes visible. */
        void abort();
    }

    /**
     * What a commit made: where the mirror stands now, the data files written for it, and whether it also committed a
     * compaction that {@link #maintainInBackground} had rewritten.
     */
    record Committed(String position, int files, long bytes, boolean compacted) {
    }
}
