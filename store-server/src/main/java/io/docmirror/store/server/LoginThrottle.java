package io.docmirror.store.server;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Slows down key guessing without ever refusing a valid key: once a client address has sent {@code failuresAllowed}
 * wrong keys, the answer to each further one is held back, twice as long each time (from {@link #FIRST_DELAY} up to
 * {@code maxDelay}), until the address has sent none for {@link #FORGET_AFTER}. A request with a valid key is never
 * held: a lockout would shut out everyone behind the same proxy or NAT, the right key included, and protect nothing,
 * since the keys are at least 192 bits. An IPv6 client counts by its /64, since one host commonly holds a whole /64.
 *
 * <p>Memory is bounded: at most {@link #MAX_TRACKED_CLIENTS} addresses are remembered, the least recently seen
 * forgotten first.
 */
public final class LoginThrottle {
    static final int MAX_TRACKED_CLIENTS = 10_000;
    static final Duration FIRST_DELAY = Duration.ofMillis(50);
    static final Duration FORGET_AFTER = Duration.ofMinutes(1);

    private final int failuresAllowed;
    private final long maxDelayNanos;
    private final LongSupplier nanoTime;
    private final Map<String, Failures> clients = new LinkedHashMap<>(16, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Failures> eldest) {
            return size() > MAX_TRACKED_CLIENTS;
        }
    };

    /**
     * @param maxDelay the longest a wrong key's answer is held
     * @param nanoTime a monotonic clock in nanoseconds ({@code System::nanoTime})
     */
    public LoginThrottle(int failuresAllowed, Duration maxDelay, LongSupplier nanoTime) {
        this.failuresAllowed = failuresAllowed;
        this.maxDelayNanos = maxDelay.toNanos();
        this.nanoTime = nanoTime;
    }

    /** The client sent a wrong key: returns how long to hold its answer. */
    public synchronized Duration recordFailure(InetAddress client) {
        long now = nanoTime.getAsLong();
        String key = key(client);
        Failures failures = clients.get(key);
        if (failures == null || now - failures.last >= FORGET_AFTER.toNanos()) {
            failures = new Failures();
            clients.put(key, failures);
        }
        failures.last = now;
        failures.count++;
        int beyond = failures.count - failuresAllowed;
        if (beyond <= 0) {
            return Duration.ZERO;
        }
        long delay = FIRST_DELAY.toNanos() << Math.min(beyond - 1, 30);
        return Duration.ofNanos(Math.min(delay, maxDelayNanos));
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

    /** One client's wrong keys since it last went {@link #FORGET_AFTER} without one, and when it sent the last. */
    private static final class Failures {
        long last;
        int count;
    }
}
