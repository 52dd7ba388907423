package io.docmirror.metrics;

import io.docmirror.feed.kafka.KafkaPublishers;
import io.docmirror.feed.kafka.PublisherActivity;
import io.docmirror.feed.processor.ChangeFeedEstimator;
import io.docmirror.store.StoreClient;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;

import java.time.Clock;
import java.util.stream.Stream;

import static java.util.Objects.requireNonNull;

/**
 * The Kafka publishers' metrics ({@code store serve --publish-kafka}): per container, the changes and transactions
 * published, the failures ridden out, and how far the last committed transaction is behind the store's change log.
 */
public final class KafkaPublisherMetrics implements MultiCollector {
    private final KafkaPublishers publishers;
    private final StoreClient store;
    private final Clock clock;

    public KafkaPublisherMetrics(KafkaPublishers publishers, StoreClient store, Clock clock) {
        this.publishers = requireNonNull(publishers, "publishers is null");
        this.store = requireNonNull(store, "store is null");
        this.clock = requireNonNull(clock, "clock is null");
    }

    @Override
    public MetricSnapshots collect() {
        FeedLag lag = new FeedLag("docmirror_kafka_publisher", "Changes committed to the store not published yet",
                "container");
        MetricFamily events = MetricFamily.counter("docmirror_kafka_publisher_events",
                "Changes published to Kafka in committed transactions by this process", "container");
        MetricFamily transactions = MetricFamily.counter("docmirror_kafka_publisher_transactions",
                "Kafka transactions committed by this process", "container");
        MetricFamily failures = MetricFamily.counter("docmirror_kafka_publisher_failures",
                "Times publishing failed (a broker away, say) and started again from the committed checkpoint",
                "container");
        MetricFamily stopped = MetricFamily.gauge("docmirror_kafka_publisher_stopped",
                "1 when the publisher stopped of a failure that is not retriable (another publisher took over, its "
                        + "feed position is lost), labelled with its code; it is not started again", "container",
                "code");
        for (PublisherActivity activity : publishers.activity()) {
            lag.add(ChangeFeedEstimator.estimate(store, activity.container(), activity.committed(), clock),
                    activity.container());
            events.add(activity.events(), activity.container());
            transactions.add(activity.transactions(), activity.container());
            failures.add(activity.failures(), activity.container());
            stopped.add(activity.stoppedForGood() ? 1 : 0, activity.container(),
                    activity.stoppedForGood() ? activity.stoppedBy().orElseThrow().name() : "");
        }
        return new MetricSnapshots(Stream.concat(lag.families().stream(), Stream.of(events, transactions, failures,
                stopped))
                .map(MetricFamily::snapshot).toList());
    }
}
