package io.docmirror.store.http;

import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/** The throttle's rules on a clock of our own: when a lockout starts and ends, what counts as one client, memory. */
class LoginThrottleTest {
    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final LoginThrottle throttle = new LoginThrottle(3, Duration.ofSeconds(60), now::get);

    @Test
    void theThirdWrongKeyWithinTheWindowLocksTheAddressOutForTheLockout() throws Exception {
        InetAddress client = InetAddress.getByName("192.0.2.1");
        throttle.recordFailure(client);
        throttle.recordFailure(client);
        assertThat(throttle.lockout(client)).isEmpty();

        throttle.recordFailure(client);
        assertThat(throttle.lockout(client)).contains(Duration.ofSeconds(60));
        advance(Duration.ofSeconds(59));
        assertThat(throttle.lockout(client)).contains(Duration.ofSeconds(1));
        advance(Duration.ofSeconds(1));
        assertThat(throttle.lockout(client)).isEmpty();

        // After the lockout the count starts again.
        throttle.recordFailure(client);
        throttle.recordFailure(client);
        assertThat(throttle.lockout(client)).isEmpty();
    }

    @Test
    void wrongKeysFurtherApartThanTheWindowDoNotAddUp() throws Exception {
        InetAddress client = InetAddress.getByName("192.0.2.1");
        for (int attempt = 0; attempt < 10; attempt++) {
            throttle.recordFailure(client);
            throttle.recordFailure(client);
            advance(Duration.ofSeconds(61));
        }
        assertThat(throttle.lockout(client)).isEmpty();
    }

    @Test
    void anIpv6ClientCountsByItsSlash64() throws Exception {
        throttle.recordFailure(InetAddress.getByName("2001:db8:1:2::1"));
        throttle.recordFailure(InetAddress.getByName("2001:db8:1:2::ffff"));
        throttle.recordFailure(InetAddress.getByName("2001:db8:1:2:aaaa:bbbb:cccc:dddd"));

        assertThat(throttle.lockout(InetAddress.getByName("2001:db8:1:2::42"))).isPresent();
        assertThat(throttle.lockout(InetAddress.getByName("2001:db8:1:3::1"))).isEmpty();
        assertThat(throttle.lockout(InetAddress.getByName("192.0.2.1"))).isEmpty();
    }

    @Test
    void memoryIsBoundedByForgettingTheLeastRecentlySeen() throws Exception {
        InetAddress locked = InetAddress.getByName("192.0.2.1");
        for (int attempt = 0; attempt < 3; attempt++) {
            throttle.recordFailure(locked);
        }
        for (int index = 0; index < LoginThrottle.MAX_TRACKED_CLIENTS * 2; index++) {
            throttle.recordFailure(InetAddress.getByAddress(new byte[] {10, (byte) (index >> 16), (byte) (index >> 8),
                    (byte) index}));
        }

        assertThat(throttle.trackedClients()).isEqualTo(LoginThrottle.MAX_TRACKED_CLIENTS);
        assertThat(throttle.lockout(locked)).as("forgotten, the oldest").isEmpty();
    }

    private void advance(Duration duration) {
        now.addAndGet(duration.toNanos());
    }
}
