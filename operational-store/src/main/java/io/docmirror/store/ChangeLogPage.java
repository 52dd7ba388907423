package io.docmirror.store;

import io.docmirror.store.changelog.ChangeEvent;

import java.util.List;

/**
 * Events of one log partition in LSN order.
 *
 * @param logStartLsn the oldest position still readable: events after it are kept, those up to it have passed the
 *     log's retention (0 while nothing has)
 * @param logEndLsn the partition's newest LSN at the time of the read (0 when nothing was ever written)
 */
public record ChangeLogPage(int logPartition, List<ChangeEvent> events, long logStartLsn, long logEndLsn) {
    public ChangeLogPage {
        events = List.copyOf(events);
    }
}
