package io.docmirror.store;

import io.docmirror.store.changelog.ChangeEvent;

import java.util.List;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * One page of an interval of a snapshot: its items in key order, each as the change that made its current version,
 * and, when the interval holds more, the continuation to read on from (the last key read, opaque and URL-safe).
 * A page is empty only at the interval's end.
 */
public record SnapshotPage(List<ChangeEvent> events, Optional<String> continuation) {
    public SnapshotPage {
        events = List.copyOf(requireNonNull(events, "events is null"));
        requireNonNull(continuation, "continuation is null");
    }
}
