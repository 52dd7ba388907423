package io.docmirror.sql.flight;

import com.google.protobuf.ByteString;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The ticket book on its own, on a clock the test moves: lifetimes and bounds without waiting. (The book never looks
 * into the query it keeps, so the tickets here carry none.)
 */
class IssuedTicketsTest {
    private final AtomicLong now = new AtomicLong();
    private final IssuedTickets tickets = new IssuedTickets(Duration.ofMinutes(5), 2, 3, now::get);

    /**
     * A ticket is fetched once (issue 41, defect 4): thirty fetches of one ticket ran its query thirty times at once,
     * each holding its result, outside the memory limit.
     */
    @Test
    void aTicketIsFetchedOnceWhileItLives() {
        ByteString ticket = tickets.issue("a", null, new Object[] {"x"});
        ByteString late = tickets.issue("b", null, new Object[] {"y"});
        assertThat(tickets.take(ticket).orElseThrow().values()).containsExactly("x");
        assertThat(tickets.take(ticket)).as("fetched again").isEmpty();
        now.addAndGet(Duration.ofMinutes(5).toNanos() - 1);
        assertThat(tickets.size()).isEqualTo(1);
        now.incrementAndGet();
        assertThat(tickets.take(late)).as("expired").isEmpty();
    }

    @Test
    void aClientsNewTicketsPushOutItsOldestOnly() {
        ByteString others = tickets.issue("b", null, new Object[0]);
        ByteString first = tickets.issue("a", null, new Object[0]);
        ByteString second = tickets.issue("a", null, new Object[0]);
        ByteString third = tickets.issue("a", null, new Object[0]);

        assertThat(tickets.take(first)).isEmpty();
        assertThat(tickets.take(second)).isPresent();
        assertThat(tickets.take(third)).isPresent();
        assertThat(tickets.take(others)).isPresent();
    }

    @Test
    void allClientsTogetherHoldAtMostTheTotal() {
        ByteString oldest = tickets.issue("a", null, new Object[0]);
        ByteString b = tickets.issue("b", null, new Object[0]);
        ByteString c = tickets.issue("c", null, new Object[0]);
        ByteString d = tickets.issue("d", null, new Object[0]);

        assertThat(tickets.take(oldest)).isEmpty();
        assertThat(tickets.take(b)).isPresent();
        assertThat(tickets.take(c)).isPresent();
        assertThat(tickets.take(d)).isPresent();
    }

    @Test
    void expiredTicketsLeaveRoomForNewOnes() {
        tickets.issue("a", null, new Object[0]);
        tickets.issue("a", null, new Object[0]);
        now.addAndGet(Duration.ofMinutes(6).toNanos());
        ByteString fresh = tickets.issue("a", null, new Object[0]);
        ByteString another = tickets.issue("a", null, new Object[0]);
        assertThat(tickets.take(fresh)).isPresent();
        assertThat(tickets.take(another)).isPresent();
    }
}
