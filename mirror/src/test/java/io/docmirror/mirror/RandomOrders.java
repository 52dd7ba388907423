package io.docmirror.mirror;

import io.docmirror.store.PartitionKey;
import io.docmirror.store.StoreClient;

import java.util.Random;

/** Creates, updates (changing line items) and deletes a few orders of container {@code orders} at random. */
final class RandomOrders {
    private final StoreClient store;
    private final Random random;

    RandomOrders(StoreClient store, long seed) {
        this.store = store;
        this.random = new Random(seed);
    }

    /** One round: each of 30 orders is deleted, left alone or upserted with 0-3 line items. */
    void writeRound(int round) {
        for (int order = 0; order < 30; order++) {
            write(order, round);
        }
    }

    /** Deletes, leaves alone or upserts order {@code o<order>}. */
    void write(int order, int round) {
        String id = "o" + order;
        String customer = "c" + (order % 7);
        int action = random.nextInt(4);
        if (action == 0 && store.findItem("orders", PartitionKey.of(customer), id).isPresent()) {
            store.deleteItem("orders", PartitionKey.of(customer), id);
        } else if (action > 1) {
            StringBuilder items = new StringBuilder();
            for (int line = 0; line < random.nextInt(4); line++) {
                items.append(line == 0 ? "" : ",").append("{\"sku\":\"S").append(random.nextInt(9))
                        .append("\",\"qty\":").append(line + 1).append('}');
            }
            store.upsertItem("orders", "{\"id\":\"" + id + "\",\"customerId\":\"" + customer
                    + "\",\"status\":\"r" + round + "\",\"total\":" + random.nextInt(100)
                    + ",\"items\":[" + items + "]}");
        }
    }
}
