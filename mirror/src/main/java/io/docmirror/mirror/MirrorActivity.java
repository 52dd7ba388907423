package io.docmirror.mirror;

/**
 * What a {@link FeedMirror} has done for one container since it started, for the mirror's metrics.
 *
 * @param events changes mirrored
 * @param commits batches committed
 * @param filesWritten Parquet files written by those commits (tables, history, dead letters)
 * @param bytesWritten their size
 * @param compactions compactions committed
 * @param compactionFailures compactions that failed (the mirror went on with its delta files)
 * @param batchFailures batches that a retriable failure other than an outage stopped before they committed (an I/O
 *     error, a catalog commit that conflicted or whose outcome is unknown; {@link MirrorErrorCode#retriable}), each
 *     retried
 */
public record MirrorActivity(String container, long events, long commits, long filesWritten, long bytesWritten,
        long compactions, long compactionFailures, long batchFailures) {
    MirrorActivity plus(MirrorActivity other) {
        return new MirrorActivity(container, events + other.events, commits + other.commits,
                filesWritten + other.filesWritten, bytesWritten + other.bytesWritten, compactions + other.compactions,
                compactionFailures + other.compactionFailures, batchFailures + other.batchFailures);
    }
}
