package io.docmirror.bench;

import com.fasterxml.jackson.databind.node.TextNode;
import io.docmirror.demo.DemoDataset;
import io.docmirror.store.Item;
import io.docmirror.store.PartitionKey;
import io.docmirror.store.PatchOperation;
import io.docmirror.store.StoreClient;

import java.time.Instant;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.locks.LockSupport;

/**
 * A steady load on the demo's orders, written by one thread: at each tick an update of a random existing order (a
 * patch of its {@code status} and {@code updatedAt}), and at every {@value #UPDATES_PER_NEW_ORDER}th tick also a new
 * order. Tick {@code k} is due at {@code start + k / rate} on a fixed schedule, so a write that runs late does not
 * push the ones after it back: a writer behind schedule writes without waiting until it has caught up, and how late
 * it fell is reported.
 */
final class PacedOrderWriter implements AutoCloseable {
    static final int UPDATES_PER_NEW_ORDER = 10;
    private static final String[] STATUSES = {"paid", "shipped", "delivered", "returned"};

    private final StoreClient store;
    private final DemoDataset dataset;
    private final int updatesPerSecond;
    private final SplittableRandom random;
    private final Thread thread;
    private volatile boolean stopped;
    private boolean closed;
    private long startedAt;
    private long endedAt;
    private long updates;
    private long newOrders;
    private long mostLateNanos;
    private RuntimeException failure;

    /** What the writer did. */
    record Result(long updates, long newOrders, double seconds, double mostLateMillis) {
        double updatesPerSecond() {
            return updates / seconds;
        }

        double newOrdersPerSecond() {
            return newOrders / seconds;
        }
    }

    /**
     * Starts writing.
     *
     * @param dataset the orders already in the store ({@code 0 .. orders - 1}); new orders take the numbers after
     * @param seed of the choice of orders to update and of their new status
     */
    static PacedOrderWriter start(StoreClient store, DemoDataset dataset, int updatesPerSecond, long seed) {
        PacedOrderWriter writer = new PacedOrderWriter(store, dataset, updatesPerSecond, seed);
        writer.thread.start();
        return writer;
    }

    private PacedOrderWriter(StoreClient store, DemoDataset dataset, int updatesPerSecond, long seed) {
        if (updatesPerSecond < 1) {
            throw new IllegalArgumentException("The writer needs at least one update a second, not "
                    + updatesPerSecond);
        }
        this.store = store;
        this.dataset = dataset;
        this.updatesPerSecond = updatesPerSecond;
        this.random = new SplittableRandom(seed);
        this.thread = new Thread(this::write, "paced-order-writer");
    }

    /** Stops the writer and waits for it; rethrows what stopped it early, if anything did. */
    Result stop() throws InterruptedException {
        close();
        return new Result(updates, newOrders, (endedAt - startedAt) / 1e9, mostLateNanos / 1e6);
    }

    /** Stops the writer, if it is still writing, and waits for it; rethrows what stopped it early, if anything did. */
    @Override
    public void close() throws InterruptedException {
        if (closed) {
            return;
        }
        closed = true;
        stopped = true;
        thread.join();
        if (failure != null) {
            throw new IllegalStateException("The writer failed after " + updates + " updates and " + newOrders
                    + " new orders", failure);
        }
    }

    private void write() {
        startedAt = System.nanoTime();
        long orders = dataset.orders();
        try {
            for (long tick = 0; !stopped; tick++) {
                long due = startedAt + tick * 1_000_000_000L / updatesPerSecond;
                long late = System.nanoTime() - due;
                mostLateNanos = Math.max(mostLateNanos, late);
                while (late < 0 && !stopped) {
                    LockSupport.parkNanos(-late);
                    late = System.nanoTime() - due;
                }
                if (stopped) {
                    break;
                }
                update(random.nextLong(orders));
                if (tick % UPDATES_PER_NEW_ORDER == UPDATES_PER_NEW_ORDER - 1) {
                    store.createItem(DemoDataset.CONTAINER, dataset.generator().order(orders,
                            dataset.placedAt(orders)));
                    orders++;
                    newOrders++;
                }
            }
        } catch (RuntimeException e) {
            failure = e;
        } finally {
            endedAt = System.nanoTime();
        }
    }

    private void update(long index) {
        update(store, dataset, index, random);
        updates++;
    }

    /** Updates order {@code index}: a new {@code status}, at random, and {@code updatedAt} now. */
    static Item update(StoreClient store, DemoDataset dataset, long index, SplittableRandom random) {
        return store.patchItem(DemoDataset.CONTAINER, PartitionKey.of(dataset.generator().customerId(index)),
                "order-" + index, List.of(
                        PatchOperation.set("/status", TextNode.valueOf(STATUSES[random.nextInt(STATUSES.length)])),
                        PatchOperation.set("/updatedAt", TextNode.valueOf(Instant.now().toString()))));
    }
}
