package io.docmirror.store;

import java.io.Serializable;
import java.util.Objects;
import java.util.Optional;

/**
 * A contiguous interval of one log partition's items in key order: from the split point {@link #from()}
 * (inclusive; the partition's first item when empty) up to the split point {@link #until()} (exclusive; the
 * partition's end when empty). Split points are opaque, URL-safe strings from {@link SnapshotReader#split}; the
 * intervals {@code split} gives, read one after the other, are the partition's items in key order, each once.
 *
 * <p>Serializable, so that a job can hand intervals to the tasks that read them.
 */
public final class SnapshotInterval implements Serializable {
    private static final long serialVersionUID = 1L;

    private final int logPartition;
    /** Null for the partition's start. */
    private final String from;
    /** Null for the partition's end. */
    private final String until;

    private SnapshotInterval(int logPartition, String from, String until) {
        if (logPartition < 0) {
            throw new IllegalArgumentException("A log partition is at least 0, not " + logPartition);
        }
        this.logPartition = logPartition;
        this.from = from;
        this.until = until;
    }

    public static SnapshotInterval of(int logPartition, Optional<String> from, Optional<String> until) {
        return new SnapshotInterval(logPartition, from.orElse(null), until.orElse(null));
    }

    /** Every item of the log partition. */
    public static SnapshotInterval wholePartition(int logPartition) {
        return new SnapshotInterval(logPartition, null, null);
    }

    public int logPartition() {
        return logPartition;
    }

    /** The split point the interval starts at (inclusive); empty for the log partition's start. */
    public Optional<String> from() {
        return Optional.ofNullable(from);
    }

    /** The split point the interval ends before (exclusive); empty for the log partition's end. */
    public Optional<String> until() {
        return Optional.ofNullable(until);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof SnapshotInterval interval && interval.logPartition == logPartition
                && Objects.equals(interval.from, from) && Objects.equals(interval.until, until);
    }

    @Override
    public int hashCode() {
        return Objects.hash(logPartition, from, until);
    }

    @Override
    public String toString() {
        return "log partition " + logPartition + " [" + (from == null ? "start" : from) + ", "
                + (until == null ? "end" : until) + ")";
    }
}
