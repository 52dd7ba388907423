package io.docmirror.demo;

import io.docmirror.store.BulkOptions;
import io.docmirror.store.BulkResult;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.PartitionKey;
import io.docmirror.store.StoreClient;
import io.docmirror.store.StoreErrorCode;
import io.docmirror.store.StoreException;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongConsumer;

/**
 * The demo's {@code CustomersOrdersAndItems} container: a year of generated online orders (see
 * {@link OrderGenerator}), partitioned by customer, mirrored with analytical TTL -1. Loading is resumable: a load
 * that was killed half way picks up where it stopped, because every order has a fixed id and an order already
 * stored is left as it is.
 */
public final class DemoDataset {
    public static final String CONTAINER = "CustomersOrdersAndItems";
    public static final String PARTITION_KEY_PATH = "/customerId";
    private static final long SEED = 42;
    private static final Instant FIRST_ORDER = Instant.parse("2025-01-01T00:00:00Z");
    private static final Duration SPAN = Duration.ofDays(365);
    private static final int BATCH = 5000;

    private final int orders;
    private final OrderGenerator generator;

    /**
     * @param orders how many orders the loaded dataset holds; they spread over about one customer per five orders
     */
    public DemoDataset(int orders) {
        if (orders < 1) {
            throw new IllegalArgumentException("The demo needs at least one order, not " + orders);
        }
        this.orders = orders;
        this.generator = new OrderGenerator(SEED, Math.max(1, orders / 5));
    }

    public int orders() {
        return orders;
    }

    /** The generator of the dataset's orders; order {@code orders()} and on are the demo's live stream. */
    public OrderGenerator generator() {
        return generator;
    }

    /**
     * Creates the container when it is missing and stores every order of the dataset not stored yet.
     *
     * @param progress told the number of orders done after each batch
     * @return how many orders this call stored (0 when the dataset was already complete)
     */
    public long load(StoreClient store, LongConsumer progress) {
        if (!createContainerIfMissing(store) && isComplete(store)) {
            progress.accept(orders);
            return 0;
        }
        long stored = 0;
        for (int start = 0; start < orders; start += BATCH) {
            int end = Math.min(orders, start + BATCH);
            List<byte[]> batch = new ArrayList<>(end - start);
            for (int index = start; index < end; index++) {
                batch.add(generator.order(index, placedAt(index)));
            }
            BulkResult result = store.bulkWrite(CONTAINER, batch, BulkOptions.CREATE);
            for (BulkResult.Failure failure : result.failures()) {
                // 409: the order is there from an earlier, interrupted load. Anything else is a real failure.
                if (failure.status() != 409) {
                    throw new IllegalStateException("Cannot load demo order " + (start + failure.index())
                            + " into " + CONTAINER + ": " + failure.status() + " " + failure.message());
                }
            }
            stored += result.written();
            progress.accept(end);
        }
        return stored;
    }

    /** When order {@code index} of the dataset was placed: the orders spread evenly over 2025. */
    public Instant placedAt(long index) {
        return FIRST_ORDER.plus(SPAN.multipliedBy(index).dividedBy(orders));
    }

    private static boolean createContainerIfMissing(StoreClient store) {
        try {
            store.readContainer(CONTAINER);
            return false;
        } catch (StoreException e) {
            if (e.code() != StoreErrorCode.NOT_FOUND) {
                throw e;
            }
            store.createContainer(ContainerProperties.of(CONTAINER, PARTITION_KEY_PATH).withAnalyticalTtl(-1));
            return true;
        }
    }

    /** The last order goes in with the last batch, so the dataset is complete once it is there. */
    private boolean isComplete(StoreClient store) {
        long last = orders - 1;
        return store.findItem(CONTAINER, PartitionKey.of(generator.customerId(last)), "order-" + last).isPresent();
    }
}
