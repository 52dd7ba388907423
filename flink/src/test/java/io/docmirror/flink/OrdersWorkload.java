package io.docmirror.flink;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.docmirror.mirror.VaryingOrders;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.PartitionKey;
import io.docmirror.store.PartitionKeyValue;
import io.docmirror.store.StoreJson;
import io.docmirror.store.changelog.ChangeEvent;
import io.docmirror.store.changelog.Operation;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;

/**
 * The changes a store makes to a container of orders, as its feed hands them to the publisher: creates, upserts with
 * new fields, patches that give one path every shape in turn (so writers hold changes for the committer's schema
 * decisions) and deletes, with gapless LSNs per feed range. It knows what the mirror must end up holding.
 */
final class OrdersWorkload {
    private static final List<String> SHAPES = List.of("\"text\"", "{\"a\":\"x\",\"b\":[\"y\"]}", "[\"x\",\"y\"]",
            "true", "null", "7", "{\"deep\":{\"deeper\":\"z\"}}");

    private final ContainerProperties container;
    private final Random random = new Random(20261129L);
    /** The live documents by id. */
    private final Map<String, ObjectNode> live = new LinkedHashMap<>();
    private final Map<Integer, Long> lsns = new HashMap<>();
    private long ts = 1_790_000_000_000L;
    private int nextDocument;
    private long changes;

    OrdersWorkload(ContainerProperties container) {
        this.container = container;
    }

    /** The next {@code count} changes. */
    List<ChangeEvent> next(int count) {
        List<ChangeEvent> events = new ArrayList<>();
        for (int change = 0; change < count; change++) {
            int kind = live.isEmpty() ? 0 : random.nextInt(8);
            events.add(switch (kind) {
                case 3 -> upsert(randomLive());
                case 4, 5 -> patch(randomLive());
                case 6 -> delete(randomLive());
                default -> create();
            });
        }
        changes += count;
        return events;
    }

    /** The next {@code count} changes, all creates of new orders. */
    List<ChangeEvent> creates(int count) {
        List<ChangeEvent> events = new ArrayList<>();
        for (int change = 0; change < count; change++) {
            events.add(create());
        }
        changes += count;
        return events;
    }

    /**
     * The next {@code count} changes, all upserts of orders drawn at random from those created so far: for a workload
     * without deletes (a benchmark's), where every order created is live and drawing one costs nothing.
     */
    List<ChangeEvent> upserts(int count) {
        List<ChangeEvent> events = new ArrayList<>();
        for (int change = 0; change < count; change++) {
            String id = "o" + random.nextInt(nextDocument);
            if (!live.containsKey(id)) {
                throw new IllegalStateException("Order " + id + " was deleted: upserts(count) draws from every order "
                        + "created, for a workload without deletes");
            }
            events.add(upsert(id));
        }
        changes += count;
        return events;
    }

    /** Every change made so far: the history table's rows. */
    long changes() {
        return changes;
    }

    /** The live documents' statuses by id: the root table's rows. */
    Map<String, String> statuses() {
        Map<String, String> statuses = new HashMap<>();
        live.forEach((id, document) -> statuses.put(id, document.get("status").asText()));
        return statuses;
    }

    /** The live documents' items (their skus, sorted) by id, for those with any: the child table's rows. */
    Map<String, List<String>> items() {
        Map<String, List<String>> items = new HashMap<>();
        live.forEach((id, document) -> document.get("items").forEach(line -> items
                .computeIfAbsent(id, order -> new ArrayList<>()).add(line.get("sku").asText())));
        items.values().forEach(skus -> skus.sort(null));
        return items;
    }

    private String randomLive() {
        List<String> ids = new ArrayList<>(live.keySet());
        return ids.get(random.nextInt(ids.size()));
    }

    private ChangeEvent create() {
        String id = "o" + nextDocument;
        ObjectNode order = VaryingOrders.order(random, id, "c" + nextDocument % 5);
        nextDocument++;
        return change(Operation.CREATE, order, null);
    }

    private ChangeEvent upsert(String id) {
        ObjectNode previous = live.get(id);
        return change(Operation.REPLACE, VaryingOrders.order(random, id, previous.get("pk").asText()), previous);
    }

    private ChangeEvent patch(String id) {
        ObjectNode previous = live.get(id);
        ObjectNode patched = previous.deepCopy();
        patched.set("shape", json(SHAPES.get(random.nextInt(SHAPES.size()))));
        return change(Operation.REPLACE, patched, previous);
    }

    private ChangeEvent delete(String id) {
        return change(Operation.DELETE, null, live.get(id));
    }

    private ChangeEvent change(Operation operation, ObjectNode document, ObjectNode previous) {
        ObjectNode any = document != null ? document : previous;
        String id = any.get("id").asText();
        PartitionKey partitionKey = PartitionKey.of(any.get("pk").asText());
        long lsn = lsns.merge(container.logPartitionOf(partitionKey), 1L, Long::sum);
        ts += 1000;
        if (document != null) {
            document.put("_ts", ts / 1000);
            document.put("_etag", "\"" + id + "-" + lsn + "\"");
            live.put(id, document);
        } else {
            live.remove(id);
        }
        return new ChangeEvent(container.id(), PartitionKeyValue.of(partitionKey), id, operation, lsn, ts, false,
                Optional.ofNullable(document).map(ObjectNode::deepCopy), Optional.ofNullable(previous));
    }

    private static JsonNode json(String text) {
        try {
            return StoreJson.mapper().readTree(text);
        } catch (IOException e) {
            throw new UncheckedIOException(text, e);
        }
    }
}
