package io.docmirror.store;

import io.docmirror.store.changelog.ChangeEvent;

import java.util.ArrayList;
import java.util.List;

/**
 * The live items of one log partition (feed range) exactly as of one LSN, for backfill: each item as the change that
 * made its current version. Every change up to {@link #lsn()} is in what the snapshot returns and none after it, so a
 * reader that applies the change feed from {@link #lsn()} on misses nothing and applies nothing twice. Items written
 * while the snapshot is read are not seen. Close it when done: the store keeps what the snapshot needs until then.
 */
public final class PartitionSnapshot implements AutoCloseable {
    /** Reads the snapshot's items in key order; gives {@code null} when they are exhausted. */
    interface ItemCursor extends AutoCloseable {
        /** The next live item, skipping expired ones; {@code null} at the end. */
        ChangeEvent next();

        @Override
        void close();
    }

    private final String container;
    private final int logPartition;
    private final long lsn;
    private final ItemCursor cursor;
    private boolean exhausted;

    PartitionSnapshot(String container, int logPartition, long lsn, ItemCursor cursor) {
        this.container = container;
        this.logPartition = logPartition;
        this.lsn = lsn;
        this.cursor = cursor;
    }

    public String container() {
        return container;
    }

    public int logPartition() {
        return logPartition;
    }

    /** The log partition's newest LSN in the snapshot (0 when nothing was ever written to it). */
    public long lsn() {
        return lsn;
    }

    /** Up to {@code maxItems} further items; an empty list once every item was returned. */
    public List<ChangeEvent> next(int maxItems) {
        List<ChangeEvent> items = new ArrayList<>(Math.min(maxItems, 1024));
        while (!exhausted && items.size() < maxItems) {
            ChangeEvent item = cursor.next();
            if (item == null) {
                exhausted = true;
            } else {
                items.add(item);
            }
        }
        return items;
    }

    @Override
    public void close() {
        cursor.close();
    }
}
