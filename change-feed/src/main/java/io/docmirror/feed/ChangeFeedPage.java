package io.docmirror.feed;

import io.docmirror.store.changelog.ChangeEvent;

import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * Changes read by one call, in order within each feed range.
 *
 * @param continuation where the next read starts: store it once the changes are handled
 * @param caughtUp true when every feed range was read to the end of its log as it was during this read
 */
public record ChangeFeedPage(List<ChangeEvent> events, String continuation, boolean caughtUp) {
    public ChangeFeedPage {
        events = List.copyOf(events);
        requireNonNull(continuation, "continuation is null");
    }
}
