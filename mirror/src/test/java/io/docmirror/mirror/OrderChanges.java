package io.docmirror.mirror;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.PartitionKey;
import io.docmirror.store.PatchOperation;
import io.docmirror.store.StoreJson;
import io.docmirror.store.TestingClock;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Random changes to a container of orders ({@link VaryingOrders}) in the store: creates, upserts, patches that give
 * one path every shape in turn (numbers for which its column widens, and other types), deletes and TTL expiries.
 * What a scaled-out stream's tests stream and reconcile.
 */
public final class OrderChanges {
    /**
     * The values one path takes in turn: numbers for which its column widens (BIGINT to DOUBLE to DECIMAL, and a
     * DECIMAL's scale), and other types, which go to variant columns.
     */
    public static final List<String> SHAPES = List.of("1", "2.5", "0.1234567890123456789", "12345678901234567890123",
            "-0.0", "7", "\"text\"", "[1,2.5]", "null", "{\"a\":\"x\",\"b\":[\"y\"]}");

    private final EmbeddedStore store;
    private final String container;
    private final TestingClock clock;
    private final Random random;
    /** The orders the store holds: partition key, id. */
    private final List<String[]> live = new ArrayList<>();
    private int nextDocument;
    /** Orders that expired in the store, whose rows the mirror keeps. */
    private int expired;
    /** Orders no random change touches ({@link #createShaped}). */
    private int untouched;

    /** @param clock the store's clock, which an expiry moves on */
    public OrderChanges(EmbeddedStore store, String container, TestingClock clock, Random random) {
        this.store = store;
        this.container = container;
        this.clock = clock;
        this.random = random;
    }

    /** Writes {@code changes} random changes. */
    public void write(int changes) {
        for (int change = 0; change < changes; change++) {
            int kind = live.isEmpty() ? 0 : random.nextInt(9);
            switch (kind) {
                case 0, 1, 2 -> create();
                case 3 -> {
                    String[] key = live.get(random.nextInt(live.size()));
                    store.upsertItem(container, VaryingOrders.order(random, key[1], key[0]).toString());
                }
                case 4, 5 -> patch(live.get(random.nextInt(live.size())), SHAPES.get(random.nextInt(SHAPES.size())));
                case 6 -> {
                    String[] key = live.remove(random.nextInt(live.size()));
                    store.deleteItem(container, PartitionKey.of(key[0]), key[1]);
                }
                case 7 -> expire();
                default -> create();
            }
        }
    }

    /**
     * Creates an order whose {@code shape} and {@code nested.deep} are {@code shape}, which no later change touches:
     * the paths' first type, whose value a reconcile checks through every widening of their columns.
     */
    public void createShaped(String shape) {
        String[] key = create(null);
        patch(key, shape);
        untouched++;
    }

    /** How many orders the mirror holds: the live ones, and the expired ones it keeps. */
    public int mirrored() {
        return live.size() + expired + untouched;
    }

    private void patch(String[] key, String shape) {
        store.patchItem(container, PartitionKey.of(key[0]), key[1], List.of(PatchOperation.set("/shape", json(shape)),
                PatchOperation.set("/nested", json("{\"deep\":" + shape + "}"))));
    }

    private static JsonNode json(String text) {
        try {
            return StoreJson.mapper().readTree(text);
        } catch (IOException e) {
            throw new UncheckedIOException(text, e);
        }
    }

    private void create() {
        live.add(create(null));
    }

    /** Creates an order; one with a {@code ttl} is not live: it expires. Returns its partition key and id. */
    private String[] create(Integer ttl) {
        String id = "o" + nextDocument;
        String partitionKey = "c" + nextDocument % 5;
        nextDocument++;
        ObjectNode order = VaryingOrders.order(random, id, partitionKey);
        if (ttl != null) {
            order.put("ttl", ttl);
        }
        store.createItem(container, order.toString());
        return new String[] {partitionKey, id};
    }

    /** A short-lived order that expires in the store: a TTL delete, whose rows the mirror keeps. */
    private void expire() {
        create(1);
        clock.advanceSeconds(2);
        assertThat(store.reapExpired(1000)).as("orders the store expired").isPositive();
        expired++;
    }
}
