package io.docmirror.sql.flight;

import org.apache.arrow.flight.CallStatus;

import java.io.InterruptedIOException;
import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.function.LongSupplier;

/**
 * Slows down password guessing without ever refusing the right password: once {@link #FAILURES_ALLOWED} wrong logins
 * came within {@link #FORGET_AFTER} of each other, the answer to each further one is held back, twice as long each
 * time from {@link #FIRST_DELAY} up to {@link #MAX_DELAY}. A login with the right password is checked first and never
 * held. Flight's authentication does not see the client's address, so wrong logins count together; and since a held
 * answer holds a server thread, at most {@link #MAX_HELD} are held at once, any more refused at once (without being
 * checked again), so guessing cannot pile up threads either.
 */
final class FailedLogins {
    static final int FAILURES_ALLOWED = 10;
    static final Duration FIRST_DELAY = Duration.ofMillis(50);
    static final Duration MAX_DELAY = Duration.ofSeconds(2);
    static final Duration FORGET_AFTER = Duration.ofMinutes(1);
    static final int MAX_HELD = 16;

    private final LongSupplier nanoTime;
    private final Semaphore held = new Semaphore(MAX_HELD);
    private long last;
    private int count;

    /** @param nanoTime a monotonic clock in nanoseconds ({@code System::nanoTime}) */
    FailedLogins(LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
    }

    /** A wrong login: how long its answer is held back. */
    synchronized Duration record() {
        long now = nanoTime.getAsLong();
        if (count > 0 && now - last >= FORGET_AFTER.toNanos()) {
            count = 0;
        }
        last = now;
        count++;
        int beyond = count - FAILURES_ALLOWED;
        if (beyond <= 0) {
            return Duration.ZERO;
        }
        return Duration.ofNanos(Math.min(FIRST_DELAY.toNanos() << Math.min(beyond - 1, 30), MAX_DELAY.toNanos()));
    }

    /**
     * Holds back the answer to a wrong login as {@link #record} says, then returns; refuses at once when
     * {@link #MAX_HELD} answers are held already.
     */
    void holdBack() throws InterruptedIOException {
        Duration delay = record();
        if (delay.isZero()) {
            return;
        }
        if (!held.tryAcquire()) {
            throw CallStatus.RESOURCE_EXHAUSTED.withDescription("Too many wrong logins at once; slow down")
                    .toRuntimeException();
        }
        try {
            Thread.sleep(delay.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("Interrupted while holding back a wrong login's answer");
        } finally {
            held.release();
        }
    }
}
