package io.docmirror.mirror.iceberg;

import io.docmirror.layout.MirrorSummary;
import io.docmirror.mirror.MirrorTarget;
import io.docmirror.mirror.MirrorTarget.Committed;
import io.docmirror.mirror.source.Checkpoint;
import io.docmirror.store.changelog.ChangeEvent;

import java.util.Map;

/**
 * One batch of changes to a container's tables ({@link ContainerTables#begin} and the other {@code begin} methods):
 * its changes go in with {@link #add}, and either a commit or {@link #abort} ends it. The changes are written by a
 * {@link BatchWriter} and committed by a {@link BatchCommit}.
 */
public final class ContainerBatch implements MirrorTarget.Batch {
    private final BatchWriter writer;
    private final BatchCommit commit;
    private final CommittedTables committed;
    /** Tells the tables that no batch is open any more. */
    private final Runnable ended;

    ContainerBatch(BatchWriter writer, BatchCommit commit, CommittedTables committed, Runnable ended) {
        this.writer = writer;
        this.commit = commit;
        this.committed = committed;
        this.ended = ended;
    }

    @Override
    public long events() {
        return writer.events();
    }

    @Override
    public void add(ChangeEvent event) {
        writer.add(event);
    }

    @Override
    public Committed commit(Checkpoint checkpoint) {
        try {
            return commit.commit(checkpoint);
        } finally {
            ended.run();
        }
    }

    /** Abandons the batch: its files are removed, and the flattener goes back to the committed schema. */
    @Override
    public void abort() {
        try {
            commit.abort();
        } finally {
            ended.run();
        }
    }

    /** Abandons the batch after {@code failure}, which it returns with what the cleanup threw suppressed in it. */
    RuntimeException abort(RuntimeException failure) {
        try {
            return commit.abort(failure);
        } finally {
            ended.run();
        }
    }

    /**
     * Commits a backfill over a mirror ({@link ContainerTables#beginReplacingBackfill}), whose feed ranges' snapshots
     * were taken at {@code rangeLsns}: its tables replace the mirror's, and the change feed starts at those LSNs.
     */
    public Committed commitReplacingBackfill(Map<Integer, Long> rangeLsns, Checkpoint checkpoint) {
        commit.setCarried(BackfillState.SUMMARY_KEY, null);
        commit.setCarried(MirrorSummary.HISTORY_FROM, BatchCommit.json(rangeLsns));
        return commit(checkpoint);
    }

    /**
     * Commits the batch as one more feed range of a backfill, whose snapshot was taken at {@code lsn}. The range's
     * rows are visible from now on; the change feed starts when the backfill finishes.
     */
    public Committed commitBackfillRange(int feedRange, long lsn, int feedRanges) {
        BackfillState state = committed.backfill().orElse(BackfillState.start(feedRanges))
                .withRange(feedRange, lsn, writer.events());
        commit.setCarried(BackfillState.SUMMARY_KEY, BatchCommit.json(state));
        return commit(committed.checkpoint());
    }

    /**
     * Commits the last batch of a backfill whose every feed range is committed, which changes no row: the change feed
     * starts at {@code checkpoint}, and the history holds every change from the ranges' snapshots on.
     */
    Committed commitBackfillEnd(BackfillState state, Checkpoint checkpoint) {
        commit.setCarried(BackfillState.SUMMARY_KEY, null);
        commit.setCarried(MirrorSummary.HISTORY_FROM, BatchCommit.json(state.rangeLsns()));
        return commit(checkpoint);
    }

    /** Commits the batch ending at {@code checkpoint}, setting {@code carried} root summary entries that carry on. */
    Committed commitCarrying(Map<String, String> carried, Checkpoint checkpoint) {
        carried.forEach(commit::setCarried);
        return commit(checkpoint);
    }

    /** The batch's writer: upkeep deletes what the analytical TTL expires and puts in compactions through it. */
    BatchWriter writer() {
        return writer;
    }
}
