package io.docmirror.metrics;

import io.docmirror.feed.processor.ChangeFeedEstimator;

import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * A reader's lag per feed range as two gauges, {@code <prefix>_lag_events} and {@code <prefix>_lag_seconds}, labelled
 * by what reads ({@code container}, or {@code derivation} and {@code source}) and the {@code feed_range}.
 */
final class FeedLag {
    private final MetricFamily events;
    private final MetricFamily seconds;

    FeedLag(String prefix, String behind, String... readerLabels) {
        String[] labels = Stream.concat(Stream.of(readerLabels), Stream.of("feed_range")).toArray(String[]::new);
        events = MetricFamily.gauge(prefix + "_lag_events", behind, labels);
        seconds = MetricFamily.gauge(prefix + "_lag_seconds", "Age of the oldest of the " + behind.toLowerCase(Locale.ROOT)
                + " (0 when caught up)", labels);
    }

    void add(List<ChangeFeedEstimator.Lag> lags, String... reader) {
        for (ChangeFeedEstimator.Lag lag : lags) {
            String[] labels = Stream.concat(Stream.of(reader),
                    Stream.of(Integer.toString(lag.feedRange().logPartition()))).toArray(String[]::new);
            events.add(lag.eventsBehind(), labels);
            seconds.add(lag.timeBehind().toMillis() / 1000.0, labels);
        }
    }

    List<MetricFamily> families() {
        return List.of(events, seconds);
    }
}
