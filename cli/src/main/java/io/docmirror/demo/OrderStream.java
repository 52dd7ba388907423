package io.docmirror.demo;

import com.fasterxml.jackson.databind.node.TextNode;
import io.docmirror.store.PartitionKey;
import io.docmirror.store.PatchOperation;
import io.docmirror.store.Precondition;
import io.docmirror.store.StoreClient;
import io.docmirror.store.StoreException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static java.util.Objects.requireNonNull;

/**
 * The demo's light live traffic: every tick a new order placed now, and every third tick an earlier order of the
 * stream marked shipped (an update, so the mirror shows new versions as well as new rows). New orders are upserts
 * with ids after the dataset's, so a restarted demo writes over its earlier stream instead of failing.
 */
public final class OrderStream implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(OrderStream.class);

    private final StoreClient store;
    private final DemoDataset dataset;
    private final Clock clock;
    private final ScheduledExecutorService ticks = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "docmirror-demo-orders");
        thread.setDaemon(true);
        return thread;
    });
    private final AtomicLong written = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();

    public OrderStream(StoreClient store, DemoDataset dataset, Clock clock) {
        this.store = requireNonNull(store, "store is null");
        this.dataset = requireNonNull(dataset, "dataset is null");
        this.clock = requireNonNull(clock, "clock is null");
    }

    /** Starts writing one new order every {@code interval}. */
    public void start(Duration interval) {
        ticks.scheduleAtFixedRate(this::tick, 0, interval.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** Orders written so far. */
    public long written() {
        return written.get();
    }

    /** Writes that failed (each is logged). */
    public long failures() {
        return failures.get();
    }

    private void tick() {
        long count = written.get();
        long index = dataset.orders() + count;
        OrderGenerator generator = dataset.generator();
        try {
            store.upsertItem(DemoDataset.CONTAINER, generator.order(index, clock.instant()), Precondition.NONE);
            written.incrementAndGet();
            if (count % 3 == 2) {
                long shipped = dataset.orders() + count / 3;
                store.patchItem(DemoDataset.CONTAINER, PartitionKey.of(generator.customerId(shipped)),
                        "order-" + shipped, List.of(PatchOperation.set("/status", TextNode.valueOf("shipped")),
                                PatchOperation.set("/updatedAt", TextNode.valueOf(clock.instant().toString()))));
            }
        } catch (StoreException e) {
            // Keep the stream going (the store may be busy), but never quietly: every failure is logged and counted.
            failures.incrementAndGet();
            log.warn("Demo order stream: writing order-{} failed", index, e);
        }
    }

    /** Stops writing; a write in progress finishes first. */
    @Override
    public void close() throws InterruptedException {
        ticks.shutdown();
        if (!ticks.awaitTermination(10, TimeUnit.SECONDS)) {
            throw new IllegalStateException("The demo order stream did not stop within 10 s");
        }
    }
}
