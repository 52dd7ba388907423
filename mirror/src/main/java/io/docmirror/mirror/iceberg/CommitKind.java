package io.docmirror.mirror.iceberg;

import io.docmirror.layout.MirrorSummary;

import java.util.Locale;
import java.util.Optional;

/**
 * What a commit of the mirror's tables is, as its root snapshot's summary names it ({@link MirrorSummary#COMMIT_KIND})
 * and as it decides what the commit does.
 */
enum CommitKind {
    /** Changes the daemon read from the feed: indexed, its files soon compacted. */
    STREAM(true, true, false),
    /**
     * Changes a scaled-out stream's writers wrote, each into files of its own documents, committed together at a
     * checkpoint of their engine: the writers keep where each document's rows are, so the tables' own index does not.
     */
    SHARDED_STREAM(false, true, false),
    /** Documents loaded from the store's snapshot: all new to the tables, so not indexed (its memory stays flat). */
    BACKFILL(false, false, true),
    /** A compaction committed on its own: a rewrite that changes no row. */
    COMPACTION(true, false, false),
    /** Every flattened table derived afresh from the history, which it keeps as it is. */
    REBUILD(true, false, true),
    /** Damaged tables derived again from the history. */
    REPAIR(true, false, false),
    /** The rows the analytical TTL expires, deleted. */
    TTL(true, false, false);

    private final boolean indexesDocuments;
    private final boolean streamed;
    private final boolean mayReplaceTables;

    CommitKind(boolean indexesDocuments, boolean streamed, boolean mayReplaceTables) {
        this.indexesDocuments = indexesDocuments;
        this.streamed = streamed;
        this.mayReplaceTables = mayReplaceTables;
    }

    /** Whether the commit notes in the document index where each document's rows are. */
    boolean indexesDocuments() {
        return indexesDocuments;
    }

    /** Whether the commit is one of the daemon's streamed batches, whose small files compaction soon rewrites. */
    boolean streamed() {
        return streamed;
    }

    /** Whether the commit replaces the tables, when they were opened for that, rather than adds to them. */
    boolean mayReplaceTables() {
        return mayReplaceTables;
    }

    /** The kind a snapshot summary names; empty for a name of no kind (or none: a commit of an earlier version). */
    static Optional<CommitKind> ofSummaryName(String name) {
        for (CommitKind kind : values()) {
            if (kind.summaryName().equals(name)) {
                return Optional.of(kind);
            }
        }
        return Optional.empty();
    }

    /** The name in the snapshot summary: {@code stream}, {@code backfill}, {@code compaction}, ... */
    String summaryName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
