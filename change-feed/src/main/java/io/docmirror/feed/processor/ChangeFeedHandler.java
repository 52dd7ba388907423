package io.docmirror.feed.processor;

import io.docmirror.store.changelog.ChangeEvent;

import java.util.List;

/**
 * What a {@link ChangeFeedProcessor} calls with each batch of changes of one feed range.
 *
 * <p>The contract:
 * <ul>
 *   <li><b>At least once.</b> A batch is checkpointed only after {@code handle} returns. A worker that dies, or
 *   loses its lease, before the checkpoint leaves the batch to the next owner, which delivers it again. Handlers
 *   must be idempotent (upsert by id, compare the event's LSN, or store {@link ChangeFeedContext#continuation()}
 *   atomically with the output and skip what it already covers).</li>
 *   <li><b>Order.</b> Changes of one partition key value come in order, across batches and across owners. Batches of
 *   different feed ranges run concurrently, on different threads.</li>
 *   <li><b>Exceptions.</b> If {@code handle} throws, the checkpoint does not move: the same batch is retried after
 *   the processor's retry backoff, the failure is logged and counted ({@link ChangeFeedProcessor#failures()}), and
 *   the other feed ranges go on.</li>
 *   <li><b>Interruption.</b> When the processor stops or the lease is lost, the handler's thread is interrupted;
 *   a handler should return (or throw) promptly.</li>
 * </ul>
 */
@FunctionalInterface
public interface ChangeFeedHandler {
    void handle(ChangeFeedContext context, List<ChangeEvent> events) throws Exception;
}
