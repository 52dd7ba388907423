package io.docmirror.feed.kafka;

import io.docmirror.feed.FeedErrorCode;

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
 * @param stoppedBy the code of the failure that stopped the publisher; empty while it runs
 */
public record PublisherActivity(String container, long events, long transactions, long failures,
        Optional<String> committed, Optional<FeedErrorCode> stoppedBy) {
    public PublisherActivity {
        requireNonNull(container, "container is null");
        requireNonNull(committed, "committed is null");
        requireNonNull(stoppedBy, "stoppedBy is null");
    }

    /** Whether the publisher stopped of a failure that is not retriable, and is not started again. */
    public boolean stoppedForGood() {
        return stoppedBy.filter(code -> !code.retriable()).isPresent();
    }
}
