package io.docmirror.sql.flight;

import com.google.protobuf.ByteString;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.LongSupplier;

/**
 * The tickets handed out with FlightInfos, each for a query to run when the ticket is fetched. Nothing of a result
 * is held between GetFlightInfo and DoGet, so a client that never fetches costs a few bytes, not a result's
 * memory; a ticket is fetched once, running the query on the mirror's current version (a retry after a broken stream
 * asks for a new FlightInfo).
 *
 * <p>Bounded: a client (one login's bearer token) holds at most {@code perClient} tickets and all clients
 * {@code total}; beyond either, the oldest ticket (the client's own, or anyone's) is dropped.
 */
final class IssuedTickets {
    /** A query waiting under a ticket, with the parameter values it was issued with. */
    record Pending(PreparedQuery query, Object[] values, String client, long issuedNanos) {
    }

    private final Duration lifetime;
    private final int perClient;
    private final int total;
    private final LongSupplier nanoTime;
    private final LinkedHashMap<ByteString, Pending> byAge = new LinkedHashMap<>();
    private final Map<String, Deque<ByteString>> byClient = new HashMap<>();

    IssuedTickets(Duration lifetime, int perClient, int total, LongSupplier nanoTime) {
        this.lifetime = lifetime;
        this.perClient = perClient;
        this.total = total;
        this.nanoTime = nanoTime;
    }

    Duration lifetime() {
        return lifetime;
    }

    /** A new ticket's handle for {@code query} with {@code values}, issued to {@code client}. */
    synchronized ByteString issue(String client, PreparedQuery query, Object[] values) {
        expire();
        Deque<ByteString> own = byClient.computeIfAbsent(client, key -> new ArrayDeque<>());
        while (own.size() >= perClient) {
            drop(own.peekFirst());
        }
        while (byAge.size() >= total) {
            drop(byAge.keySet().iterator().next());
        }
        ByteString handle = newHandle();
        byAge.put(handle, new Pending(query, values.clone(), client, nanoTime.getAsLong()));
        byClient.computeIfAbsent(client, key -> new ArrayDeque<>()).addLast(handle);
        return handle;
    }

    /**
     * Takes the query under {@code handle}, while its ticket lives: a ticket is fetched once, so that fetching one
     * ticket again and again cannot run its query (and hold its result) any number of times at once.
     */
    synchronized Optional<Pending> take(ByteString handle) {
        expire();
        if (!byAge.containsKey(handle)) {
            return Optional.empty();
        }
        Pending pending = byAge.get(handle);
        drop(handle);
        return Optional.of(pending);
    }

    /** The tickets that may still be fetched (expired ones are dropped at the next call that looks). */
    synchronized int size() {
        return byAge.size();
    }

    /** Drops the tickets older than the lifetime. */
    synchronized void expire() {
        long now = nanoTime.getAsLong();
        for (Iterator<Pending> pending = byAge.values().iterator(); pending.hasNext(); ) {
            Pending oldest = pending.next();
            if (now - oldest.issuedNanos() < lifetime.toNanos()) {
                return;
            }
            pending.remove();
            removeFromClient(oldest.client());
        }
    }

    synchronized void clear() {
        byAge.clear();
        byClient.clear();
    }

    private void drop(ByteString handle) {
        Pending dropped = byAge.remove(handle);
        Deque<ByteString> own = byClient.get(dropped.client());
        own.remove(handle);
        if (own.isEmpty()) {
            byClient.remove(dropped.client());
        }
    }

    /** The client's oldest ticket is the one that expired: tickets expire in the order they were issued. */
    private void removeFromClient(String client) {
        Deque<ByteString> own = byClient.get(client);
        own.pollFirst();
        if (own.isEmpty()) {
            byClient.remove(client);
        }
    }

    private static ByteString newHandle() {
        UUID uuid = UUID.randomUUID();
        return ByteString.copyFrom(ByteBuffer.allocate(16).putLong(uuid.getMostSignificantBits())
                .putLong(uuid.getLeastSignificantBits()).flip());
    }
}
