package io.docmirror.mirror;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.docmirror.store.StoreJson;

import java.util.List;
import java.util.Random;

/**
 * Orders whose shapes vary the way a container's do: optional fields that come and go, a column each of four
 * {@code extra} fields may add, and line items (a child table) with an optional field of their own.
 */
public final class VaryingOrders {
    private VaryingOrders() {
    }

    /** An order drawn from {@code random}. */
    public static ObjectNode order(Random random, String id, String partitionKey) {
        ObjectNode order = StoreJson.mapper().createObjectNode();
        order.put("id", id);
        order.put("pk", partitionKey);
        order.put("status", List.of("new", "paid", "sent").get(random.nextInt(3)));
        if (random.nextBoolean()) {
            order.put("note", "field " + random.nextInt(4) + " appears");
            order.put("extra" + random.nextInt(4), random.nextInt(100));
        }
        ArrayNode items = order.putArray("items");
        for (int item = 0; item < random.nextInt(4); item++) {
            ObjectNode line = items.addObject().put("sku", "s" + random.nextInt(50)).put("qty", random.nextInt(9));
            if (random.nextInt(4) == 0) {
                line.put("gift", true);
            }
        }
        return order;
    }
}
