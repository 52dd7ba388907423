package io.docmirror.store.http;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import io.docmirror.store.StoreSnapshot;
import io.docmirror.store.SnapshotInterval;
import io.docmirror.store.SnapshotPage;
import io.docmirror.store.StoreErrorCode;
import io.docmirror.store.StoreException;
import io.docmirror.store.changelog.ChangeEvent;
import io.docmirror.store.changelog.ChangeEventJson;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Future;

/**
 * A snapshot the store's HTTP server holds, read over HTTP ({@code /containers/{c}/snapshots/{id}}, docs/http-api.md):
 * the one {@link HttpStoreClient#createSnapshot} created, or one another process created, opened by its id with
 * {@link HttpStoreClient#snapshotReader} (a backfill's driver creates it, its tasks read intervals of it). The server
 * holds it under a lease that each read renews; one not read for its lease is released. The client that created it
 * renews the lease in the background until it closes it. Thread-safe.
 */
public final class RemoteSnapshot implements StoreSnapshot {
    private static final Logger log = LoggerFactory.getLogger(RemoteSnapshot.class);

    private final HttpStoreClient client;
    private final JsonFactory responses;
    private final String container;
    private final String id;
    private final long[] lsns;
    private final Duration lease;
    private volatile Instant expiresAt;
    /** The creator's renewals of the lease, cancelled by {@link #close}; null for a reader by id. */
    private volatile Future<?> renewals;

    private RemoteSnapshot(HttpStoreClient client, JsonFactory responses, String container, String id, long[] lsns,
            Duration lease, Instant expiresAt) {
        this.client = client;
        this.responses = responses;
        this.container = container;
        this.id = id;
        this.lsns = lsns;
        this.lease = lease;
        this.expiresAt = expiresAt;
    }

    /** From the server's description: {@code {"id":..,"container":..,"lsns":[..],"leaseMs":..,"expiresAt":..}}. */
    static RemoteSnapshot described(HttpStoreClient client, JsonFactory responses, JsonNode description) {
        JsonNode lsnList = description.get("lsns");
        long[] lsns = new long[lsnList.size()];
        for (int index = 0; index < lsns.length; index++) {
            lsns[index] = lsnList.get(index).asLong();
        }
        return new RemoteSnapshot(client, responses, description.get("container").asText(),
                description.get("id").asText(), lsns, Duration.ofMillis(description.get("leaseMs").asLong()),
                Instant.parse(description.get("expiresAt").asText()));
    }

    /** The id readers in other processes open the snapshot by ({@link HttpStoreClient#snapshotReader}). */
    public String id() {
        return id;
    }

    /** How long the server holds the snapshot after its last read. */
    public Duration lease() {
        return lease;
    }

    /** When the server releases the snapshot unless it is read or renewed before (as of this reader's last call). */
    public Instant expiresAt() {
        return expiresAt;
    }

    /**
     * Renews the lease without reading (a driver waiting for its tasks keeps the snapshot so).
     *
     * @return the new expiry
     * @throws StoreException 404 when the snapshot was released or its lease expired
     */
    public Instant renew() {
        expiresAt = Instant.parse(client.getJson(path()).get("expiresAt").asText());
        return expiresAt;
    }

    void renewedUntilClosed(Future<?> renewals) {
        this.renewals = renewals;
    }

    /** One of the creator's renewals: a snapshot the server no longer holds needs none. */
    void renewWhileHeld() {
        try {
            renew();
        } catch (StoreException e) {
            if (e.code() == StoreErrorCode.NOT_FOUND) {
                log.warn("Snapshot {} of container {} is no longer held by the store: {}", id, container,
                        e.getMessage());
                Future<?> renewing = renewals;
                if (renewing != null) {
                    renewing.cancel(false);
                }
            } else {
                // Unreachable or busy for now: the next renewal tries again, well within the lease.
                log.warn("Cannot renew snapshot {} of container {}: {}", id, container, e.getMessage());
            }
        }
    }

    @Override
    public String container() {
        return container;
    }

    @Override
    public int logPartitions() {
        return lsns.length;
    }

    @Override
    public long lsn(int logPartition) {
        if (logPartition < 0 || logPartition >= lsns.length) {
            throw new StoreException(StoreErrorCode.BAD_REQUEST, "Container " + container + " has log partitions 0 to "
                    + (lsns.length - 1) + ", not " + logPartition);
        }
        return lsns[logPartition];
    }

    @Override
    public List<SnapshotInterval> split(int logPartition, int maxIntervals) {
        JsonNode answer = client.getJson(path() + "/partitions/" + logPartition + "/intervals?maxIntervals="
                + maxIntervals);
        List<SnapshotInterval> intervals = new ArrayList<>();
        for (JsonNode interval : answer.get("intervals")) {
            intervals.add(SnapshotInterval.of(logPartition, text(interval.get("from")), text(interval.get("until"))));
        }
        return intervals;
    }

    @Override
    public SnapshotPage read(SnapshotInterval interval, Optional<String> continuation, int maxItems) {
        StringBuilder query = new StringBuilder("?maxItems=").append(maxItems);
        interval.from().ifPresent(from -> query.append("&from=").append(HttpStoreClient.encode(from)));
        interval.until().ifPresent(until -> query.append("&until=").append(HttpStoreClient.encode(until)));
        continuation.ifPresent(after -> query.append("&continuation=").append(HttpStoreClient.encode(after)));
        return page(client.getBytes(path() + "/partitions/" + interval.logPartition() + "/items" + query));
    }

    /**
     * Releases the snapshot on the server (and stops renewing it, if this client created it). One already released,
     * or whose lease expired, counts as released.
     */
    @Override
    public void close() {
        Future<?> renewing = renewals;
        if (renewing != null) {
            renewing.cancel(false);
        }
        try {
            client.delete(path());
        } catch (StoreException e) {
            if (e.code() != StoreErrorCode.NOT_FOUND) {
                throw e;
            }
            // Released already (by another reader, or the server when the lease expired): what close asks for.
        }
    }

    private String path() {
        return HttpStoreClient.containerPath(container) + "/snapshots/" + HttpStoreClient.encode(id);
    }

    /**
     * {@code {"continuation":..,"expiresAt":..,"events":[..]}}, each event decoded from its own bytes so that its
     * document keeps the exact JSON the store holds (numbers as written).
     */
    private SnapshotPage page(byte[] body) {
        List<ChangeEvent> events = new ArrayList<>();
        Optional<String> continuation = Optional.empty();
        try (JsonParser parser = responses.createParser(body)) {
            expect(parser.nextToken(), JsonToken.START_OBJECT);
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                String field = parser.currentName();
                JsonToken value = parser.nextToken();
                switch (field) {
                    case "continuation" -> continuation = value == JsonToken.VALUE_NULL
                            ? Optional.empty() : Optional.of(parser.getValueAsString());
                    case "expiresAt" -> expiresAt = Instant.parse(parser.getValueAsString());
                    case "events" -> {
                        expect(value, JsonToken.START_ARRAY);
                        while (parser.nextToken() == JsonToken.START_OBJECT) {
                            int start = (int) parser.currentTokenLocation().getByteOffset();
                            parser.skipChildren();
                            int end = (int) parser.currentLocation().getByteOffset();
                            events.add(ChangeEventJson.fromJson(Arrays.copyOfRange(body, start, end)));
                        }
                    }
                    default -> parser.skipChildren();
                }
            }
        } catch (IOException | IllegalArgumentException e) {
            throw new StoreException(StoreErrorCode.INTERNAL_ERROR, "The store sent a snapshot page of container "
                    + container + " that cannot be read: " + e.getMessage(), e);
        }
        return new SnapshotPage(events, continuation);
    }

    private static void expect(JsonToken actual, JsonToken expected) throws IOException {
        if (actual != expected) {
            throw new IOException("expected " + expected + ", found " + actual);
        }
    }

    private static Optional<String> text(JsonNode node) {
        return node == null || node.isNull() ? Optional.empty() : Optional.of(node.asText());
    }
}
