package io.docmirror.feed.kafka;

import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * What one container's publisher has done since it started, for its metrics.
 *
 * @param events changes published in committed transactions
 * @param transactions transactions committed
 * @param failures times publishing failed (a broker away, say) and started again from the committed checkpoint
 * @param committed the change feed continuation of the last committed transaction: every change up to it is in
 *     Kafka; empty before the first one of this process
 */
public record PublisherActivity(String container, long events, long transactions, long failures,
        Optional<String> committed) {
    public PublisherActivity {
        requireNonNull(container, "container is null");
        requireNonNull(committed, "committed is null");
    }
}
