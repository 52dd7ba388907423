package io.docmirror.metrics;

import io.docmirror.store.ContainerProperties;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.GroupCommitStatistics;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.ClassicHistogramBuckets;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;

import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * The operational store's own metrics, read from the store at each scrape: how its writes shared fsyncs (group
 * commit sizes) and how large each container's change log is.
 */
public final class StoreMetrics implements MultiCollector {
    private final EmbeddedStore store;

    public StoreMetrics(EmbeddedStore store) {
        this.store = requireNonNull(store, "store is null");
    }

    @Override
    public MetricSnapshots collect() {
        MetricFamily events = MetricFamily.gauge("docmirror_store_change_log_events",
                "Change events the container's log holds (those retention has not removed)", "container");
        MetricFamily bytes = MetricFamily.gauge("docmirror_store_change_log_bytes",
                "RocksDB's estimate of the bytes the container's change log takes", "container");
        for (ContainerProperties container : store.listContainers()) {
            events.add(store.changeLogEvents(container.id()), container.id());
            bytes.add(store.changeLogBytes(container.id()), container.id());
        }
        return new MetricSnapshots(List.of(groupSizes(store.groupCommitStatistics()), events.snapshot(),
                bytes.snapshot()));
    }

    /** Each group commit (one fsync) observed as the number of writes it made durable. */
    private static MetricSnapshot groupSizes(GroupCommitStatistics statistics) {
        List<Integer> bounds = GroupCommitStatistics.SIZE_BOUNDS;
        double[] upperBounds = new double[bounds.size() + 1];
        long[] counts = new long[bounds.size() + 1];
        long below = 0;
        for (int index = 0; index < bounds.size(); index++) {
            upperBounds[index] = bounds.get(index);
            counts[index] = statistics.groupsUpTo().get(index) - below;
            below = statistics.groupsUpTo().get(index);
        }
        upperBounds[bounds.size()] = Double.POSITIVE_INFINITY;
        counts[bounds.size()] = statistics.groups() - below;
        return HistogramSnapshot.builder()
                .name("docmirror_store_group_commit_size")
                .help("Writes made durable by one group commit (one fsync); the count is the number of fsyncs")
                .dataPoint(HistogramSnapshot.HistogramDataPointSnapshot.builder()
                        .classicHistogramBuckets(ClassicHistogramBuckets.of(upperBounds, counts))
                        .sum(statistics.transactions())
                        .build())
                .build();
    }
}
