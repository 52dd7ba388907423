package io.docmirror.metrics;

import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;

import java.util.ArrayList;
import java.util.List;

/**
 * One metric family assembled at scrape time from a status snapshot: a name, its help, and its labelled values.
 * docmirror's metrics are read from the same status {@code ./docmirror status} prints, so the two never disagree.
 */
final class MetricFamily {
    private record Point(Labels labels, double value) {
    }

    private final String name;
    private final String help;
    private final boolean counter;
    private final String[] labelNames;
    private final List<Point> points = new ArrayList<>();

    private MetricFamily(String name, String help, boolean counter, String... labelNames) {
        this.name = name;
        this.help = help;
        this.counter = counter;
        this.labelNames = labelNames.clone();
    }

    static MetricFamily gauge(String name, String help, String... labelNames) {
        return new MetricFamily(name, help, false, labelNames);
    }

    /** A counter; {@code name} without the {@code _total} suffix, which the exposition format adds. */
    static MetricFamily counter(String name, String help, String... labelNames) {
        return new MetricFamily(name, help, true, labelNames);
    }

    MetricFamily add(double value, String... labelValues) {
        points.add(new Point(Labels.of(labelNames, labelValues), value));
        return this;
    }

    MetricSnapshot snapshot() {
        if (counter) {
            CounterSnapshot.Builder builder = CounterSnapshot.builder().name(name).help(help);
            points.forEach(point -> builder.dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder()
                    .labels(point.labels).value(point.value).build()));
            return builder.build();
        }
        GaugeSnapshot.Builder builder = GaugeSnapshot.builder().name(name).help(help);
        points.forEach(point -> builder.dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder()
                .labels(point.labels).value(point.value).build()));
        return builder.build();
    }
}
