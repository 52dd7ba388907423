package io.docmirror.sql.flight;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The results being streamed to clients: at most {@code perClient} for one client (one login) and {@code total} for
 * all, so that the memory results hold while they are read is bounded whatever the clients fetch. A fetch beyond
 * either is refused until a stream ends.
 */
final class OpenStreams {
    private final int perClient;
    private final int total;
    private final Map<String, Integer> byClient = new HashMap<>();
    private int open;

    OpenStreams(int perClient, int total) {
        this.perClient = perClient;
        this.total = total;
    }

    /**
     * Opens a stream for {@code client}, or says why not.
     *
     * @return empty when the stream is open (the caller then {@link #close}s it); otherwise the reason it is not
     */
    synchronized Optional<String> open(String client) {
        if (byClient.getOrDefault(client, 0) >= perClient) {
            return Optional.of(perClient + " results are being read by this login already ("
                    + FlightConfig.MAX_STREAMS_PER_CLIENT.key() + "); read one to its end or cancel it first");
        }
        if (open >= total) {
            return Optional.of(total + " results are being read already (" + FlightConfig.MAX_STREAMS.key()
                    + "); try again once one ends");
        }
        byClient.merge(client, 1, Integer::sum);
        open++;
        return Optional.empty();
    }

    synchronized void close(String client) {
        byClient.computeIfPresent(client, (key, count) -> count == 1 ? null : count - 1);
        open--;
    }

    synchronized int open() {
        return open;
    }
}
