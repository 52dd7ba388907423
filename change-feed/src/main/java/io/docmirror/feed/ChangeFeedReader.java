package io.docmirror.feed;

import io.docmirror.store.ChangeLogPage;
import io.docmirror.store.StoreClient;
import io.docmirror.store.StoreErrorCode;
import io.docmirror.store.StoreException;
import io.docmirror.store.changelog.ChangeEvent;
import io.docmirror.store.changelog.Operation;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.stream.IntStream;

import static java.util.Objects.requireNonNull;

/**
 * The pull model of a container's change feed: {@link #readNext} returns the next changes and a continuation token
 * that starts a later reader (in this process or another, after a restart) exactly after them.
 *
 * <p>Changes of one partition key value come in order; a reader of all feed ranges takes them in turns. To read in
 * parallel, open one reader per feed range ({@link #open(StoreClient, FeedRange, ChangeFeedMode, StartFrom)}).
 * Works in-process ({@code EmbeddedStore}) and over HTTP ({@code HttpStoreClient}) alike. Not thread-safe.
 */
public final class ChangeFeedReader {
    private final StoreClient store;
    private final String container;
    private final ChangeFeedMode mode;
    private final int[] logPartitions;
    /** Per feed range read: the LSN of the last change read. */
    private final long[] positions;
    private int nextRange;

    private ChangeFeedReader(StoreClient store, String container, ChangeFeedMode mode, int[] logPartitions,
            long[] positions) {
        this.store = store;
        this.container = container;
        this.mode = mode;
        this.logPartitions = logPartitions;
        this.positions = positions;
    }

    /** A reader of every feed range of the container. */
    public static ChangeFeedReader open(StoreClient store, String container, ChangeFeedMode mode, StartFrom start) {
        return open(store, feedRanges(store, container), mode, start);
    }

    /** A reader of one feed range. */
    public static ChangeFeedReader open(StoreClient store, FeedRange range, ChangeFeedMode mode, StartFrom start) {
        return open(store, List.of(range), mode, start);
    }

    /**
     * A reader of some feed ranges of one container.
     *
     * @throws ChangeFeedException for an unknown container or feed range, a token of another container or without
     *     a position for one of the ranges, or a position the log no longer holds
     * @throws IllegalArgumentException for a malformed continuation token
     */
    public static ChangeFeedReader open(StoreClient store, List<FeedRange> ranges, ChangeFeedMode mode,
            StartFrom start) {
        requireNonNull(store, "store is null");
        requireNonNull(mode, "mode is null");
        requireNonNull(start, "start is null");
        if (ranges.isEmpty()) {
            throw new IllegalArgumentException("A change feed reader needs at least one feed range");
        }
        String container = ranges.get(0).container();
        int available = logPartitionCount(store, container);
        int[] logPartitions = ranges.stream().mapToInt(FeedRange::logPartition).distinct().sorted().toArray();
        for (FeedRange range : ranges) {
            if (!range.container().equals(container)) {
                throw new IllegalArgumentException("A change feed reader reads one container, not " + container
                        + " and " + range.container());
            }
            if (range.logPartition() >= available) {
                throw new ChangeFeedException(StoreErrorCode.BAD_REQUEST, "Cannot read feed range " + range
                        + ": container " + container
                        + " has feed ranges 0 to " + (available - 1));
            }
        }
        long[] positions = new long[logPartitions.length];
        ContinuationToken token = start instanceof StartFrom.Continuation continuation
                ? ContinuationToken.decode(continuation.token())
                : null;
        if (token != null && !token.container().equals(container)) {
            throw new ChangeFeedException(StoreErrorCode.BAD_REQUEST, "Cannot start the change feed of " + container
                    + " from a continuation token of container " + token.container());
        }
        for (int index = 0; index < logPartitions.length; index++) {
            FeedRange range = new FeedRange(container, logPartitions[index]);
            positions[index] = startPosition(store, range, start, token);
        }
        return new ChangeFeedReader(store, container, mode, logPartitions, positions);
    }

    private static long startPosition(StoreClient store, FeedRange range, StartFrom start, ContinuationToken token) {
        if (start instanceof StartFrom.Beginning) {
            return probe(store, range).logStartLsn();
        }
        if (start instanceof StartFrom.Now) {
            return probe(store, range).logEndLsn();
        }
        if (start instanceof StartFrom.PointInTime pointInTime) {
            return positionBefore(store, range, pointInTime.time());
        }
        Long position = token.positions().get(range.logPartition());
        if (position == null) {
            throw new ChangeFeedException(StoreErrorCode.BAD_REQUEST, "Cannot start feed range " + range
                    + " from the continuation token: it has "
                    + "no position for that feed range (it has " + token.positions().keySet() + ")");
        }
        return position;
    }

    /** The feed ranges of a container, one per log partition. */
    public static List<FeedRange> feedRanges(StoreClient store, String container) {
        return IntStream.range(0, logPartitionCount(store, container))
                .mapToObj(partition -> new FeedRange(container, partition))
                .toList();
    }

    public ChangeFeedMode mode() {
        return mode;
    }

    /**
     * The next changes, at most {@code maxEvents} (latest-version mode may return fewer: older versions are left
     * out), taking the feed ranges in turns.
     *
     * @throws ChangeFeedException when the log no longer holds the reader's position in a feed range
     */
    public ChangeFeedPage readNext(int maxEvents) {
        return readOnce(maxEvents, event -> true);
    }

    /**
     * The next changes that {@code filter} keeps (a partition key's, say), at most {@code maxEvents}: the reader
     * reads on past the changes it leaves out until it has that many or has caught up, so a page of a narrow filter
     * is not empty while later changes would match.
     *
     * @throws ChangeFeedException when the log no longer holds the reader's position in a feed range
     */
    public ChangeFeedPage readNext(int maxEvents, Predicate<ChangeEvent> filter) {
        requireNonNull(filter, "filter is null");
        List<ChangeEvent> events = new ArrayList<>();
        while (true) {
            String before = continuation();
            // Never more than the page still lacks: the position then ends at the last change read, kept or not.
            ChangeFeedPage page = readOnce(maxEvents - events.size(), filter);
            events.addAll(page.events());
            // A read that moved no position has nothing more to give now, whatever the log's end says.
            if (events.size() == maxEvents || page.caughtUp() || page.continuation().equals(before)) {
                return new ChangeFeedPage(events, page.continuation(), page.caughtUp());
            }
        }
    }

    private ChangeFeedPage readOnce(int maxEvents, Predicate<ChangeEvent> filter) {
        if (maxEvents < 1) {
            throw new IllegalArgumentException("maxEvents must be at least 1: " + maxEvents);
        }
        List<ChangeEvent> events = new ArrayList<>();
        boolean caughtUp = true;
        int budget = maxEvents;
        for (int turn = 0; turn < logPartitions.length; turn++) {
            int index = (nextRange + turn) % logPartitions.length;
            if (budget == 0) {
                caughtUp = false;
                break;
            }
            ChangeLogPage page = read(new FeedRange(container, logPartitions[index]), positions[index], budget);
            if (!page.events().isEmpty()) {
                positions[index] = page.events().get(page.events().size() - 1).lsn();
                budget -= page.events().size();
                List<ChangeEvent> kept = page.events().stream().filter(filter).toList();
                events.addAll(mode == ChangeFeedMode.LATEST_VERSION ? latestVersions(kept) : kept);
            }
            caughtUp &= positions[index] >= page.logEndLsn();
        }
        nextRange = (nextRange + 1) % logPartitions.length;
        return new ChangeFeedPage(events, continuation(), caughtUp);
    }

    /** Where a reader opened with {@link StartFrom#continuation} goes on: right after the changes read so far. */
    public String continuation() {
        Map<Integer, Long> map = new TreeMap<>();
        for (int index = 0; index < logPartitions.length; index++) {
            map.put(logPartitions[index], positions[index]);
        }
        return new ContinuationToken(container, map).encode();
    }

    /**
     * Of each item, only the change that is still its current version: dropped are older versions (superseded in
     * this page or later) and deletes, and an item deleted since is left out altogether.
     */
    private List<ChangeEvent> latestVersions(List<ChangeEvent> events) {
        Map<String, ChangeEvent> newest = new LinkedHashMap<>();
        for (ChangeEvent event : events) {
            String key = event.partitionKey().jsonText() + "\u0000" + event.id();
            newest.remove(key);
            newest.put(key, event);
        }
        List<ChangeEvent> latest = new ArrayList<>(newest.size());
        for (ChangeEvent event : newest.values()) {
            if (event.operation() == Operation.DELETE) {
                continue;
            }
            if (store.findItem(container, event.partitionKey().toPartitionKey(), event.id())
                    .filter(item -> item.lsn() == event.lsn()).isPresent()) {
                latest.add(event);
            }
        }
        return latest;
    }

    private ChangeLogPage read(FeedRange range, long after, int maxEvents) {
        try {
            return store.readChangeLog(range.container(), range.logPartition(), after, maxEvents);
        } catch (StoreException e) {
            if (e.code() == StoreErrorCode.GONE) {
                throw new ChangeFeedException(StoreErrorCode.GONE, "Cannot read feed range " + range + " after LSN " + after
                        + ": the change log no longer holds that position (its retention has passed); the oldest "
                        + "available position is after LSN " + probe(store, range).logStartLsn()
                        + ". Start again from the beginning, or backfill.", e);
            }
            throw e;
        }
    }

    /** A read that returns no events, for the log's start and end. */
    private static ChangeLogPage probe(StoreClient store, FeedRange range) {
        return store.readChangeLog(range.container(), range.logPartition(), Long.MAX_VALUE, 1);
    }

    /** The position right before the first change committed at or after {@code time} (a binary search by LSN). */
    private static long positionBefore(StoreClient store, FeedRange range, Instant time) {
        ChangeLogPage bounds = probe(store, range);
        long low = bounds.logStartLsn() + 1;
        long high = bounds.logEndLsn() + 1;
        // Commit times rise with the LSN within a log partition.
        while (low < high) {
            long middle = low + (high - low) / 2;
            Optional<ChangeEvent> event = store.readChangeLog(range.container(), range.logPartition(), middle - 1, 1)
                    .events().stream().findFirst();
            if (event.isEmpty() || event.get().ts() >= time.toEpochMilli()) {
                high = middle;
            } else {
                low = middle + 1;
            }
        }
        return low - 1;
    }

    private static int logPartitionCount(StoreClient store, String container) {
        try {
            return store.readContainer(container).logPartitions();
        } catch (StoreException e) {
            if (e.code() == StoreErrorCode.NOT_FOUND) {
                throw new ChangeFeedException(StoreErrorCode.NOT_FOUND, "Cannot read the change feed of container " + container
                        + ": no such container", e);
            }
            throw e;
        }
    }
}
