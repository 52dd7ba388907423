package io.docmirror.feed.derive;

import io.docmirror.feed.processor.ChangeFeedEstimator;

import java.time.Duration;
import java.util.List;

/**
 * Where one derivation stands.
 *
 * @param lag per feed range of the source: the checkpoint, the log's end, and how far behind
 * @param errors source changes recorded as not derivable (in {@link DerivationErrors#CONTAINER})
 * @param eventsDerived source changes applied by this process since it started
 * @param documentsWritten target documents written by this process since it started
 * @param documentsDeleted target documents deleted by this process since it started
 * @param failedBatches batches whose handling threw and were retried, since this process started
 */
public record DerivationStatus(String name, String source, List<String> targets, List<ChangeFeedEstimator.Lag> lag,
        long errors, long eventsDerived, long documentsWritten, long documentsDeleted, long failedBatches) {
    public DerivationStatus {
        targets = List.copyOf(targets);
        lag = List.copyOf(lag);
    }

    public long eventsBehind() {
        return ChangeFeedEstimator.eventsBehind(lag);
    }

    public Duration timeBehind() {
        return ChangeFeedEstimator.timeBehind(lag);
    }
}
