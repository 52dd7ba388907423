package io.docmirror.store.server;

import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/** The throttle's rules on a clock of our own: when wrong keys' answers are held back, what counts as one client. */
class LoginThrottleTest {
    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final LoginThrottle throttle = new LoginThrottle(3, Duration.ofMillis(300), now::get);

    @Test
    void beyondTheAllowedWrongKeysEachAnswerIsHeldTwiceAsLongUpToTheMost() throws Exception {
        InetAddress client = InetAddress.getByName("192.0.2.1");
        List<Duration> delays = new ArrayList<>();
        for (int attempt = 0; attempt < 7; attempt++) {
            delays.add(throttle.recordFailure(client));
        }
        assertThat(delays).containsExactly(Duration.ZERO, Duration.ZERO, Duration.ZERO, Duration.ofMillis(50),
                Duration.ofMillis(100), Duration.ofMillis(200), Duration.ofMillis(300));
    }

    @Test
    void anAddressWithoutAWrongKeyForAMinuteStartsAgain() throws Exception {
        InetAddress client = InetAddress.getByName("192.0.2.1");
        for (int attempt = 0; attempt < 5; attempt++) {
            throttle.recordFailure(client);
        }
        advance(LoginThrottle.FORGET_AFTER.minusMillis(1));
        assertThat(throttle.recordFailure(client)).as("within the minute").isEqualTo(Duration.ofMillis(200));
        advance(LoginThrottle.FORGET_AFTER);
        assertThat(throttle.recordFailure(client)).as("a minute later").isZero();
    }

    @Test
    void anIpv6ClientCountsByItsSlash64() throws Exception {
        throttle.recordFailure(InetAddress.getByName("2001:db8:1:2::1"));
        throttle.recordFailure(InetAddress.getByName("2001:db8:1:2::ffff"));
        throttle.recordFailure(InetAddress.getByName("2001:db8:1:2:aaaa:bbbb:cccc:dddd"));

        assertThat(throttle.recordFailure(InetAddress.getByName("2001:db8:1:2::42"))).isPositive();
        assertThat(throttle.recordFailure(InetAddress.getByName("2001:db8:1:3::1"))).isZero();
        assertThat(throttle.recordFailure(InetAddress.getByName("192.0.2.1"))).isZero();
    }

    @Test
    void memoryIsBoundedByForgettingTheLeastRecentlySeen() throws Exception {
        InetAddress guesser = InetAddress.getByName("192.0.2.1");
        for (int attempt = 0; attempt < 3; attempt++) {
            throttle.recordFailure(guesser);
        }
        for (int index = 0; index < LoginThrottle.MAX_TRACKED_CLIENTS * 2; index++) {
            throttle.recordFailure(InetAddress.getByAddress(new byte[] {10, (byte) (index >> 16), (byte) (index >> 8),
                    (byte) index}));
        }

        assertThat(throttle.trackedClients()).isEqualTo(LoginThrottle.MAX_TRACKED_CLIENTS);
        assertThat(throttle.recordFailure(guesser)).as("forgotten, the oldest").isZero();
    }

    private void advance(Duration duration) {
        now.addAndGet(duration.toNanos());
    }
}
