package io.docmirror.store.server.docmirror;

import io.docmirror.feed.ChangeFeedException;
import io.docmirror.feed.ChangeFeedMode;
import io.docmirror.feed.ChangeFeedPage;
import io.docmirror.feed.ChangeFeedReader;
import io.docmirror.feed.FeedRange;
import io.docmirror.feed.StartFrom;
import io.docmirror.store.StoreClient;
import io.docmirror.store.StoreException;
import io.docmirror.store.changelog.ChangeEventJson;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Map;

/**
 * {@code GET /containers/{c}/changefeed}: the pull model over the store's HTTP API (docs/http-api.md). Query
 * parameters: {@code mode} ({@code all-versions-and-deletes} or {@code latest-version}), {@code continuation} or
 * {@code start} ({@code beginning}, {@code now} or an ISO-8601 instant), {@code maxItems}, and optionally
 * {@code feedRange} to read one feed range. The answer holds the changes, the continuation to send next, and
 * whether the feed is caught up. {@code maxItems} comes capped at {@code store.http.max-page-items} (and set to it
 * when absent) by {@link StoreEndpoints}.
 */
final class ChangeFeedHttpRoute {

    private final StoreClient store;

    ChangeFeedHttpRoute(StoreClient store) {
        this.store = store;
    }

    /**
     * @return the JSON response of a GET with these query parameters
     * @throws IllegalArgumentException for a bad request
     */
    byte[] get(String container, Map<String, String> query) {
        ChangeFeedMode mode = ChangeFeedMode.fromConfigValue(query.getOrDefault("mode",
                ChangeFeedMode.ALL_VERSIONS_AND_DELETES.configValue()));
        int maxItems = positiveInt(query.get("maxItems"), "maxItems");
        StartFrom start = startFrom(query);
        try {
            ChangeFeedReader reader = query.containsKey("feedRange")
                    ? ChangeFeedReader.open(store, List.of(new FeedRange(container,
                            positiveOrZeroInt(query.get("feedRange"), "feedRange"))), mode, start)
                    : ChangeFeedReader.open(store, container, mode, start);
            ChangeFeedPage page = reader.readNext(maxItems);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            out.writeBytes("{\"events\":[".getBytes(StandardCharsets.UTF_8));
            for (int index = 0; index < page.events().size(); index++) {
                if (index > 0) {
                    out.write(',');
                }
                out.writeBytes(ChangeEventJson.toJson(page.events().get(index)));
            }
            out.writeBytes(("],\"continuation\":\"" + page.continuation() + "\",\"caughtUp\":" + page.caughtUp() + "}")
                    .getBytes(StandardCharsets.UTF_8));
            return out.toByteArray();
        } catch (ChangeFeedException e) {
            throw new StoreException(e.code(), e.getMessage(), e);
        }
    }

    private static StartFrom startFrom(Map<String, String> query) {
        if (query.containsKey("continuation")) {
            if (query.containsKey("start")) {
                throw new IllegalArgumentException("Give either continuation or start, not both");
            }
            return StartFrom.continuation(query.get("continuation"));
        }
        String start = query.getOrDefault("start", "beginning");
        switch (start) {
            case "beginning":
                return StartFrom.beginning();
            case "now":
                return StartFrom.now();
            default:
                try {
                    return StartFrom.pointInTime(Instant.parse(start));
                } catch (DateTimeParseException e) {
                    throw new IllegalArgumentException("Invalid start '" + start
                            + "': expected beginning, now or an ISO-8601 instant such as 2026-01-01T00:00:00Z", e);
                }
        }
    }

    private static int positiveInt(String text, String name) {
        int value = positiveOrZeroInt(text, name);
        if (value < 1) {
            throw new IllegalArgumentException("Invalid " + name + " " + text + ": must be at least 1");
        }
        return value;
    }

    private static int positiveOrZeroInt(String text, String name) {
        try {
            int value = Integer.parseInt(text);
            if (value < 0) {
                throw new IllegalArgumentException("Invalid " + name + " " + text + ": must not be negative");
            }
            return value;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("Invalid " + name + " " + text + ": must be an integer", e);
        }
    }
}
