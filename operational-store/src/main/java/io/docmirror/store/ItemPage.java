package io.docmirror.store;

import java.util.List;
import java.util.Optional;

/**
 * One page of a scan over a log partition's items, for backfill.
 *
 * @param continuation where the next page starts; empty when the scan is complete
 * @param logEndLsn the log partition's newest LSN when the page was read: a reader that applies the change log
 *        after this LSN sees every later change
 */
public record ItemPage(List<Item> items, Optional<String> continuation, long logEndLsn) {
    public ItemPage {
        items = List.copyOf(items);
    }
}
