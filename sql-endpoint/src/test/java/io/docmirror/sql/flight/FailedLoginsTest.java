package io.docmirror.sql.flight;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/** When wrong logins' answers are held back, on a clock the test moves (issue 41, defect 7). */
class FailedLoginsTest {
    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final FailedLogins failures = new FailedLogins(now::get);

    @Test
    void beyondTheAllowedWrongLoginsEachAnswerIsHeldTwiceAsLongUpToTheMost() {
        List<Duration> delays = new ArrayList<>();
        for (int attempt = 0; attempt < FailedLogins.FAILURES_ALLOWED + 8; attempt++) {
            delays.add(failures.record());
        }
        assertThat(delays.subList(0, FailedLogins.FAILURES_ALLOWED)).containsOnly(Duration.ZERO);
        assertThat(delays.subList(FailedLogins.FAILURES_ALLOWED, delays.size())).containsExactly(
                Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(200), Duration.ofMillis(400),
                Duration.ofMillis(800), Duration.ofMillis(1600), Duration.ofSeconds(2), Duration.ofSeconds(2));
    }

    @Test
    void aMinuteWithoutAWrongLoginStartsAgain() {
        for (int attempt = 0; attempt < FailedLogins.FAILURES_ALLOWED + 3; attempt++) {
            failures.record();
        }
        now.addAndGet(FailedLogins.FORGET_AFTER.toNanos());
        assertThat(failures.record()).isZero();
    }
}
