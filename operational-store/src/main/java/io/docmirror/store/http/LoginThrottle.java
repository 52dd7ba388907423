package io.docmirror.store.http;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongSupplier;

/**
 * Slows down key guessing: a client address that sends {@code failuresAllowed} wrong keys within the lockout window
 * is locked out for the lockout, and each of its requests is answered 429 meanwhile (whatever key it sends, so
 * that a lockout cannot be used to test guesses). An IPv6 client counts by its /64, since one host commonly holds
 * a whole /64.
 *
 * <p>Memory is bounded: at most {@link #MAX_TRACKED_CLIENTS} addresses are remembered, the least recently seen
 * forgotten first.
 */
final class LoginThrottle {
    static final int MAX_TRACKED_CLIENTS = 10_000;

    private final int failuresAllowed;
    private final long lockoutNanos;
    private final LongSupplier nanoTime;
    private final Map<String, Failures> clients = new LinkedHashMap<>(16, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Failures> eldest) {
            return size() > MAX_TRACKED_CLIENTS;
        }
    };

    /**
     * @param nanoTime a monotonic clock in nanoseconds ({@code System::nanoTime})
     */
    LoginThrottle(int failuresAllowed, Duration lockout, LongSupplier nanoTime) {
        this.failuresAllowed = failuresAllowed;
        this.lockoutNanos = lockout.toNanos();
        this.nanoTime = nanoTime;
    }

    /** How much longer the client is locked out; empty when it may present a key. */
    synchronized Optional<Duration> lockout(InetAddress client) {
        Failures failures = clients.get(key(client));
        long now = nanoTime.getAsLong();
        if (failures == null || failures.lockedUntil - now <= 0) {
            return Optional.empty();
        }
        return Optional.of(Duration.ofNanos(failures.lockedUntil - now));
    }

    /** The client sent a wrong key. */
    synchronized void recordFailure(InetAddress client) {
        long now = nanoTime.getAsLong();
        String key = key(client);
        Failures failures = clients.get(key);
        if (failures == null || now - failures.windowStart >= lockoutNanos && failures.lockedUntil - now <= 0) {
            failures = new Failures(now);
            clients.put(key, failures);
        }
        failures.count++;
        if (failures.count >= failuresAllowed) {
            failures.lockedUntil = now + lockoutNanos;
            failures.windowStart = now;
            failures.count = 0;
        }
    }

    synchronized int trackedClients() {
        return clients.size();
    }

    private static String key(InetAddress client) {
        byte[] address = client.getAddress();
        if (client instanceof Inet6Address) {
            address = Arrays.copyOf(address, 8);
        }
        return HexFormat.of().formatHex(address);
    }

    /** One client's wrong keys in its current window, and until when it is locked out. */
    private static final class Failures {
        long windowStart;
        int count;
        long lockedUntil;

        Failures(long now) {
            this.windowStart = now;
            this.lockedUntil = now;
        }
    }
}
