package io.docmirror.store.server.docmirror;

import io.docmirror.store.StoreSnapshot;
import io.docmirror.store.SnapshotSource;
import io.docmirror.store.StoreErrorCode;
import io.docmirror.store.StoreException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import static java.util.Objects.requireNonNull;

/**
 * The container snapshots the HTTP API holds for its clients, so that many readers (a distributed backfill's tasks)
 * share one. Each is held under a lease that every read renews; one not renewed in time is released by a background
 * sweep, so a crashed or hostile client pins RocksDB's old item versions for at most one lease. At most
 * {@code store.http.max-snapshots} are held at once, each lease at most {@code store.http.snapshot-max-lease-ms}.
 * Ids are 128 random bits: knowing the container is not enough to read or release another client's snapshot.
 */
public final class HeldSnapshots implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(HeldSnapshots.class);
    private static final Pattern ID = Pattern.compile("[A-Za-z0-9_-]{22}");
    /** How often expired leases are looked for, at most. */
    private static final Duration SWEEP_INTERVAL = Duration.ofSeconds(1);

    /** One held snapshot and its lease. */
    public static final class Lease {
        private final String id;
        private final StoreSnapshot snapshot;
        private final Duration duration;
        private Instant expiresAt;

        private Lease(String id, StoreSnapshot snapshot, Duration duration, Instant expiresAt) {
            this.id = id;
            this.snapshot = snapshot;
            this.duration = duration;
            this.expiresAt = expiresAt;
        }

        public String id() {
            return id;
        }

        public StoreSnapshot snapshot() {
            return snapshot;
        }

        public Duration duration() {
            return duration;
        }

        /** When the server releases the snapshot unless it is read (or renewed) before. */
        public synchronized Instant expiresAt() {
            return expiresAt;
        }

        private synchronized void renewAt(Instant now) {
            expiresAt = now.plus(duration);
        }

        private synchronized boolean expiredAt(Instant now) {
            return !now.isBefore(expiresAt);
        }
    }

    private final SnapshotSource source;
    private final int maxSnapshots;
    private final Duration maxLease;
    private final Clock clock;
    private final SecureRandom random = new SecureRandom();
    /** By id; guarded by {@code this}. */
    private final Map<String, Lease> held = new HashMap<>();
    /** Started with the first snapshot; guarded by {@code this}. */
    private ScheduledExecutorService sweeper;
    /** Guarded by {@code this}. */
    private boolean closed;

    public HeldSnapshots(SnapshotSource source, int maxSnapshots, Duration maxLease, Clock clock) {
        this.source = requireNonNull(source, "source is null");
        this.maxSnapshots = maxSnapshots;
        this.maxLease = requireNonNull(maxLease, "maxLease is null");
        this.clock = requireNonNull(clock, "clock is null");
    }

    public Duration maxLease() {
        return maxLease;
    }

    /**
     * Opens and holds a snapshot of the container.
     *
     * @param lease how long it is held unless read; at most {@link #maxLease()}
     * @throws StoreException 404 for an unknown container, 429 when as many snapshots as allowed are held
     */
    public Lease open(String container, Duration lease) {
        releaseExpired();
        Duration duration = lease.compareTo(maxLease) > 0 ? maxLease : lease;
        synchronized (this) {
            if (closed) {
                throw new StoreException(StoreErrorCode.UNAVAILABLE, "Cannot create a snapshot of container "
                        + container + ": the server is shutting down");
            }
            if (held.size() >= maxSnapshots) {
                throw new StoreException(StoreErrorCode.TOO_MANY_REQUESTS, "Cannot create a snapshot of container "
                        + container + ": the server holds " + held.size() + " snapshots, as many as "
                        + "store.http.max-snapshots allows; release one (DELETE it) or wait for a lease to expire");
            }
            StoreSnapshot snapshot = source.openSnapshot(container);
            Lease opened = new Lease(newId(), snapshot, duration, clock.instant().plus(duration));
            held.put(opened.id, opened);
            startSweeps();
            return opened;
        }
    }

    /**
     * The held snapshot, its lease renewed.
     *
     * @throws StoreException 400 for a malformed id, 404 for one not held (never created, released or expired)
     */
    public Lease renew(String container, String id) {
        Lease lease = held(container, id);
        lease.renewAt(clock.instant());
        return lease;
    }

    /**
     * Releases a held snapshot.
     *
     * @throws StoreException 400 for a malformed id, 404 for one not held
     */
    public void release(String container, String id) {
        Lease lease = held(container, id);
        synchronized (this) {
            held.remove(id, lease);
        }
        lease.snapshot.close();
    }

    private Lease held(String container, String id) {
        if (!ID.matcher(id).matches()) {
            throw new StoreException(StoreErrorCode.BAD_REQUEST, "Invalid snapshot id '"
                    + (id.length() > 64 ? id.substring(0, 64) + "..." : id)
                    + "': an id is the 22 characters that creating the snapshot answered");
        }
        Lease lease;
        synchronized (this) {
            lease = held.get(id);
        }
        if (lease == null || !lease.snapshot.container().equals(container) || lease.expiredAt(clock.instant())) {
            throw new StoreException(StoreErrorCode.NOT_FOUND, "Snapshot " + id + " of container " + container
                    + " does not exist: it was never created, was released, or its lease expired (a lease lasts up "
                    + "to " + maxLease.toMillis() + " ms after the last read); create a new snapshot");
        }
        return lease;
    }

    /** Releases every snapshot whose lease has expired. */
    void releaseExpired() {
        Instant now = clock.instant();
        List<Lease> expired = new ArrayList<>();
        synchronized (this) {
            held.values().removeIf(lease -> lease.expiredAt(now) && expired.add(lease));
        }
        for (Lease lease : expired) {
            log.info("Releasing snapshot {} of container {}: its lease of {} ms expired", lease.id,
                    lease.snapshot.container(), lease.duration.toMillis());
            lease.snapshot.close();
        }
    }

    private void releaseExpiredLogged() {
        try {
            releaseExpired();
        } catch (RuntimeException e) {
            // A failure here must not end the sweeps: the next one tries again.
            log.error("Cannot release the expired snapshots", e);
        }
    }

    /** Guarded by {@code this}: a server whose clients take no snapshot runs no thread for them. */
    private void startSweeps() {
        if (sweeper != null) {
            return;
        }
        sweeper = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "docmirror-store-snapshot-leases");
            thread.setDaemon(true);
            return thread;
        });
        long interval = Math.min(SWEEP_INTERVAL.toMillis(), maxLease.toMillis());
        sweeper.scheduleWithFixedDelay(this::releaseExpiredLogged, interval, interval, TimeUnit.MILLISECONDS);
    }

    private String newId() {
        byte[] bytes = new byte[16];
        random.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /** Stops the sweeps and releases every snapshot held. */
    @Override
    public void close() {
        List<Lease> all;
        synchronized (this) {
            closed = true;
            if (sweeper != null) {
                sweeper.shutdownNow();
            }
            all = new ArrayList<>(held.values());
            held.clear();
        }
        all.forEach(lease -> lease.snapshot.close());
    }
}
