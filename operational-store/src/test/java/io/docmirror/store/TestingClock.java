package io.docmirror.store;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A clock that tests move by hand, so that TTL and batching tests never sleep. */
public final class TestingClock extends Clock {
    private volatile Instant now;

    public TestingClock(Instant start) {
        this.now = start;
    }

    public static TestingClock atEpochSecond(long seconds) {
        return new TestingClock(Instant.ofEpochSecond(seconds));
    }

    public void advance(Duration duration) {
        now = now.plus(duration);
    }

    public void advanceSeconds(long seconds) {
        advance(Duration.ofSeconds(seconds));
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException("a TestingClock is always UTC");
    }

    @Override
    public Instant instant() {
        return now;
    }
}
