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

    @Test
    void aTicketCanBeFetchedAgainUntilItExpires() {
        ByteString ticket = tickets.issue("a", null, new Object[] {"x"});
        assertThat(tickets.fetch(ticket)).isPresent();
        now.addAndGet(Duration.ofMinutes(5).toNanos() - 1);
        assertThat(tickets.fetch(ticket)).as("fetched again, just in time").isPresent();
        assertThat(tickets.fetch(ticket).orElseThrow().values()).containsExactly("x");
        now.incrementAndGet();
        assertThat(tickets.fetch(ticket)).isEmpty();
    }

    @Test
    void aClientsNewTicketsPushOutItsOldestOnly() {
        ByteString others = tickets.issue("b", null, new Object[0]);
        ByteString first = tickets.issue("a", null, new Object[0]);
        ByteString second = tickets.issue("a", null, new Object[0]);
        ByteString third = tickets.issue("a", null, new Object[0]);

        assertThat(tickets.fetch(first)).isEmpty();
        assertThat(tickets.fetch(second)).isPresent();
        assertThat(tickets.fetch(third)).isPresent();
        assertThat(tickets.fetch(others)).isPresent();
    }

    @Test
    void allClientsTogetherHoldAtMostTheTotal() {
        ByteString oldest = tickets.issue("a", null, new Object[0]);
        ByteString b = tickets.issue("b", null, new Object[0]);
        ByteString c = tickets.issue("c", null, new Object[0]);
        ByteString d = tickets.issue("d", null, new Object[0]);

        assertThat(tickets.fetch(oldest)).isEmpty();
        assertThat(tickets.fetch(b)).isPresent();
        assertThat(tickets.fetch(c)).isPresent();
        assertThat(tickets.fetch(d)).isPresent();
    }

    @Test
    void expiredTicketsLeaveRoomForNewOnes() {
        tickets.issue("a", null, new Object[0]);
        tickets.issue("a", null, new Object[0]);
        now.addAndGet(Duration.ofMinutes(6).toNanos());
        ByteString fresh = tickets.issue("a", null, new Object[0]);
        ByteString another = tickets.issue("a", null, new Object[0]);
        assertThat(tickets.fetch(fresh)).isPresent();
        assertThat(tickets.fetch(another)).isPresent();
    }
}
