package io.docmirror.metrics;

import io.docmirror.layout.CatalogSettings;
import io.docmirror.mirror.ContainerStatus;
import io.docmirror.mirror.FeedMirror;
import io.docmirror.mirror.MirrorActivity;
import io.docmirror.mirror.MirrorHealth;
import io.docmirror.store.StoreClient;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;

import java.time.Clock;
import java.util.stream.Stream;

import static java.util.Objects.requireNonNull;

/**
 * The mirror daemon's metrics: per mirrored container its lag per feed range (from the committed batch's
 * checkpoint, as {@code ./docmirror status} shows it; none while the store does not answer), what the newest batch
 * holds, what this process has mirrored and written since it started, and whether its change source answers.
 */
public final class MirrorMetrics implements MultiCollector {
    private final StoreClient store;
    private final CatalogSettings catalog;
    private final FeedMirror mirror;
    private final Clock clock;

    /** @param catalog the catalog the mirror keeps its tables in */
    public MirrorMetrics(StoreClient store, CatalogSettings catalog, FeedMirror mirror, Clock clock) {
        this.store = requireNonNull(store, "store is null");
        this.catalog = requireNonNull(catalog, "catalog is null");
        this.mirror = requireNonNull(mirror, "mirror is null");
        this.clock = requireNonNull(clock, "clock is null");
    }

    @Override
    public MetricSnapshots collect() {
        FeedLag lag = new FeedLag("docmirror_mirror", "Changes committed to the store that the mirror does not hold yet",
                "container");
        MetricFamily batch = MetricFamily.gauge("docmirror_mirror_batch",
                "The newest committed batch (0: nothing mirrored yet)", "container");
        MetricFamily lastCommit = MetricFamily.gauge("docmirror_mirror_last_commit_timestamp_seconds",
                "When the newest batch was committed (0: never)", "container");
        MetricFamily files = MetricFamily.gauge("docmirror_mirror_files",
                "Parquet data files of the tables at the newest batch", "container");
        MetricFamily deadLetters = MetricFamily.gauge("docmirror_mirror_dead_letters",
                "Documents that could not be mirrored, kept with the reason", "container");
        MetricFamily conflicts = MetricFamily.gauge("docmirror_mirror_conflicts",
                "Values that did not fit their column's type or their table's column limit", "container");
        MetricFamily damagedFiles = MetricFamily.gauge("docmirror_mirror_damaged_files",
                "Files of the newest batch that cannot be read as recorded (missing, truncated): their tables fail "
                        + "to answer until `docmirror repair` mends them", "container");
        for (ContainerStatus status : ContainerStatus.ofMirroredContainers(catalog, store, clock)) {
            // While the store does not answer the lag is unknown: no sample, rather than a lag of zero.
            if (status.storeUnreachable() == null) {
                lag.add(status.lag(), status.container());
            }
            batch.add(status.batch(), status.container());
            lastCommit.add(status.lastCommitMillis() / 1000.0, status.container());
            files.add(status.files(), status.container());
            deadLetters.add(status.deadLetters(), status.container());
            conflicts.add(status.conflicts(), status.container());
            damagedFiles.add(status.damagedFiles().size(), status.container());
        }
        MetricFamily events = MetricFamily.counter("docmirror_mirror_events",
                "Changes mirrored by this process", "container");
        MetricFamily commits = MetricFamily.counter("docmirror_mirror_commits",
                "Batches committed by this process", "container");
        MetricFamily filesWritten = MetricFamily.counter("docmirror_mirror_files_written",
                "Parquet files written by this process", "container");
        MetricFamily bytesWritten = MetricFamily.counter("docmirror_mirror_written_bytes",
                "Bytes of Parquet written by this process", "container");
        MetricFamily compactions = MetricFamily.counter("docmirror_mirror_compactions",
                "Compactions committed by this process", "container");
        MetricFamily compactionFailures = MetricFamily.counter("docmirror_mirror_compaction_failures",
                "Compactions that failed in this process (the mirror goes on with its delta files)", "container");
        MetricFamily batchFailures = MetricFamily.counter("docmirror_mirror_batch_failures",
                "Batches a retriable failure (an I/O error such as a full disk, a catalog commit conflict) stopped "
                        + "before they committed; each is retried", "container");
        MetricFamily sourceUnreachable = MetricFamily.gauge("docmirror_mirror_source_unreachable_seconds",
                "How long the change source (the store's HTTP API, a Kafka broker) has not answered; 0 while it "
                        + "answers", "container");
        MetricFamily sourceFailures = MetricFamily.counter("docmirror_mirror_source_failures",
                "Reads of the change source that failed in this process (it did not answer); each is retried",
                "container");
        MetricFamily failing = MetricFamily.gauge("docmirror_mirror_failing",
                "1 while an error keeps the container from being mirrored (a lost feed position, say), labelled with "
                        + "its code (POSITION_LOST); it is retried while the other containers go on", "container",
                "code");
        long now = clock.millis();
        for (MirrorHealth health : mirror.health()) {
            sourceUnreachable.add(health.sourceUnreachableFor(now).toMillis() / 1000.0, health.container());
            sourceFailures.add(health.sourceFailures(), health.container());
            failing.add(health.failure() == null ? 0 : 1, health.container(),
                    health.failureCode() == null ? "" : health.failureCode().name());
        }
        for (MirrorActivity activity : mirror.activity()) {
            events.add(activity.events(), activity.container());
            commits.add(activity.commits(), activity.container());
            filesWritten.add(activity.filesWritten(), activity.container());
            bytesWritten.add(activity.bytesWritten(), activity.container());
            compactions.add(activity.compactions(), activity.container());
            compactionFailures.add(activity.compactionFailures(), activity.container());
            batchFailures.add(activity.batchFailures(), activity.container());
        }
        return new MetricSnapshots(Stream.concat(lag.families().stream(), Stream.of(batch, lastCommit, files,
                deadLetters, conflicts, damagedFiles, sourceUnreachable, sourceFailures, failing, events, commits,
                filesWritten, bytesWritten, compactions, compactionFailures, batchFailures))
                .map(MetricFamily::snapshot).toList());
    }
}
