package io.docmirror.metrics;

import io.docmirror.feed.derive.DerivationRunner;
import io.docmirror.feed.derive.DerivationStatus;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;

import java.util.stream.Stream;

import static java.util.Objects.requireNonNull;

/** The derivations' metrics: each one's lag per feed range of its source, its errors, and what it has written. */
public final class DerivationMetrics implements MultiCollector {
    private final DerivationRunner runner;

    public DerivationMetrics(DerivationRunner runner) {
        this.runner = requireNonNull(runner, "runner is null");
    }

    @Override
    public MetricSnapshots collect() {
        FeedLag lag = new FeedLag("docmirror_derivation", "Source changes not derived yet", "derivation", "source");
        MetricFamily errors = MetricFamily.gauge("docmirror_derivation_errors",
                "Source changes recorded as not derivable, in container derivation-errors", "derivation");
        MetricFamily events = MetricFamily.counter("docmirror_derivation_events",
                "Source changes derived by this process", "derivation");
        MetricFamily written = MetricFamily.counter("docmirror_derivation_documents_written",
                "Target documents written by this process", "derivation");
        MetricFamily deleted = MetricFamily.counter("docmirror_derivation_documents_deleted",
                "Target documents deleted by this process", "derivation");
        MetricFamily failedBatches = MetricFamily.counter("docmirror_derivation_failed_batches",
                "Batches whose handling failed and was retried, by this process", "derivation");
        for (DerivationStatus status : runner.status()) {
            lag.add(status.lag(), status.name(), status.source());
            errors.add(status.errors(), status.name());
            events.add(status.eventsDerived(), status.name());
            written.add(status.documentsWritten(), status.name());
            deleted.add(status.documentsDeleted(), status.name());
            failedBatches.add(status.failedBatches(), status.name());
        }
        return new MetricSnapshots(Stream.concat(lag.families().stream(),
                Stream.of(errors, events, written, deleted, failedBatches)).map(MetricFamily::snapshot).toList());
    }
}
