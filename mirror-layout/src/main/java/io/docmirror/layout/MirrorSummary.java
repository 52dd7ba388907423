package io.docmirror.layout;

/**
 * What the mirror writes into the summary of each snapshot it commits (Iceberg keeps a snapshot's summary with it, so
 * the data and these facts become visible together). The root table's snapshots carry all of them; the other tables'
 * carry {@link #BATCH}.
 */
public final class MirrorSummary {
    /** The number of the mirror's commit, counting from 1; every table a commit changes gets the same number. */
    public static final String BATCH = "docmirror.batch";
    /**
     * Where in the change feed the commit's data ends, as JSON: {@code {"continuation": "<token>"}} for the store's
     * feed, or {@code {"kafkaOffsets": {"<topic>-<partition>": <next offset>}, "kafkaReached": "<token>"}} for Kafka.
     * A restart resumes right after it, so no change is lost and none is applied twice.
     */
    public static final String CHECKPOINT = "docmirror.checkpoint";
    /**
     * How far the commit's data reaches, as JSON for readers that do not decode {@link #CHECKPOINT}: the newest LSN
     * per feed range ({@code "feed range 0": 42}) and, reading Kafka, the next offset per topic partition
     * ({@code "orders-0": 17}).
     */
    public static final String POSITIONS = "docmirror.positions";
    /** The location of the flattener's schema (JSON) as of the commit: the decisions replayed changes must repeat. */
    public static final String FLATTENER_SCHEMA = "docmirror.flattener-schema";
    /** The newest change's commit time in the store, milliseconds since the epoch: how fresh the mirror is. */
    public static final String LAST_EVENT_TS = "docmirror.last-event-ts";
    /**
     * The kind of commit: {@code stream}, {@code backfill}, {@code compaction}, {@code rebuild}, {@code repair}, or
     * {@code ttl} (rows past the container's analytical TTL deleted; the checkpoint is the previous commit's).
     */
    public static final String COMMIT_KIND = "docmirror.commit-kind";

    /**
     * Root table, after a backfill: from which LSN per feed range (JSON, {@code {"0": 1234}}) the history holds every
     * change; before it, the history holds each document's version as of the snapshot only.
     */
    public static final String HISTORY_FROM = "docmirror.history-from";

    /**
     * Root table, after a scaled-out stream's commit: how many changes it decided the schema for, which its writers
     * apply with the next commit. The feed position passes them, so a single mirror takes the container over only
     * from a commit with none.
     */
    public static final String HELD_CHANGES = "docmirror.held-changes";

    private MirrorSummary() {
    }
}
