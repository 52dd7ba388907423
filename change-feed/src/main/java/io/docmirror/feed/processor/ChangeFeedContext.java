package io.docmirror.feed.processor;

import io.docmirror.feed.FeedRange;

import static java.util.Objects.requireNonNull;

/**
 * Where a batch comes from.
 *
 * @param feedRange the feed range of every change in the batch
 * @param workerId the worker that holds the feed range's lease
 * @param continuation the checkpoint that will be stored once the batch is handled: a handler that keeps it with
 *     its own output (atomically) can tell, after a crash, which batches it has already applied
 */
public record ChangeFeedContext(FeedRange feedRange, String workerId, String continuation) {
    public ChangeFeedContext {
        requireNonNull(feedRange, "feedRange is null");
        requireNonNull(workerId, "workerId is null");
        requireNonNull(continuation, "continuation is null");
    }
}
