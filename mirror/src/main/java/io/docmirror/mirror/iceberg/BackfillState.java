package io.docmirror.mirror.iceberg;

import com.fasterxml.jackson.annotation.JsonIgnore;

import java.util.Map;
import java.util.TreeMap;

/**
 * A backfill into a container's Iceberg tables that has not finished (the root table's snapshot summary holds it as
 * JSON under {@link #SUMMARY_KEY}): the feed ranges snapshotted so far, each as of one LSN. A backfill killed midway
 * goes on from here, redoing only the ranges it had not committed.
 *
 * @param feedRanges how many feed ranges the container has
 * @param rangeLsns of each range done, the LSN its snapshot was taken at
 * @param items how many documents the done ranges held
 */
public record BackfillState(int feedRanges, Map<Integer, Long> rangeLsns, long items) {
    public static final String SUMMARY_KEY = "docmirror.backfill";

    public BackfillState {
        rangeLsns = Map.copyOf(new TreeMap<>(rangeLsns));
    }

    public static BackfillState start(int feedRanges) {
        return new BackfillState(feedRanges, Map.of(), 0);
    }

    public boolean isDone(int feedRange) {
        return rangeLsns.containsKey(feedRange);
    }

    @JsonIgnore
    public boolean isComplete() {
        return rangeLsns.size() == feedRanges;
    }

    /** This state with one more range done, at {@code lsn}, holding {@code rangeItems} documents. */
    public BackfillState withRange(int feedRange, long lsn, long rangeItems) {
        Map<Integer, Long> lsns = new TreeMap<>(rangeLsns);
        lsns.put(feedRange, lsn);
        return new BackfillState(feedRanges, lsns, items + rangeItems);
    }
}
