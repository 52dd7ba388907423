package io.docmirror.source.cosmos;

import com.azure.cosmos.CosmosContainer;
import com.azure.cosmos.CosmosException;
import com.azure.cosmos.models.CosmosChangeFeedRequestOptions;
import com.azure.cosmos.models.FeedRange;
import com.azure.cosmos.models.FeedResponse;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.docmirror.feed.ContinuationToken;
import io.docmirror.mirror.source.ChangeSource;
import io.docmirror.mirror.source.Checkpoint;
import io.docmirror.mirror.MirrorErrorCode;
import io.docmirror.mirror.MirrorException;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.StoreException;
import io.docmirror.store.changelog.ChangeEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * A container's changes from a Cosmos DB account's change feed, read with the SDK's pull model, one feed range
 * (partition key range) at a time. Its position is committed with the mirror's data ({@link CosmosFeedPosition}).
 *
 * <p><b>Feed mode.</b> All versions and deletes where the account offers it (on Azure it needs continuous backup),
 * so that the mirror holds every change; otherwise the latest version, which holds neither deletes nor the versions
 * an item went through between two reads. The mode is chosen when the container is first mirrored and kept.
 *
 * <p><b>First load, without gap or duplicate.</b> An account's all-versions feed starts only at "now", so a
 * container first mirrored gets its current documents from the latest-version feed first. Per feed range:
 * <ol>
 * <li>take the all-versions position "now", P (before anything is loaded, so every change after it is kept);</li>
 * <li>read the latest-version feed from the beginning to its end: each item's newest version, with its {@code _lsn}.
 * An item changed while it is read comes again later in that feed with its newer version, so the load ends with
 * every item's version at some LSN up to E, the newest it read; only deletes during the load are missed. The load
 * remembers the items it read at a version newer than P (few: those changed during the load);</li>
 * <li>stream all versions and deletes from P. A change of an item at or below the version the load gave the mirror
 * is skipped (the mirror has it, or a newer version); every other change is newer than what the mirror holds and
 * is applied: deletes during the load, and everything after it. Once that feed is read up to now, every change up
 * to E has passed and nothing more is skipped.</li>
 * </ol>
 * Like a snapshot's, the history of a loaded container starts at the load: it holds each item's version as loaded,
 * not the versions before (the checkpoint's {@code historyFrom} is E per range). In latest-version mode the load
 * simply goes on: the latest-version feed is read on from where the load ended.
 */
final class CosmosFeedSource implements ChangeSource {
    private static final Logger log = LoggerFactory.getLogger(CosmosFeedSource.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final CosmosAccount account;
    private final ContainerProperties container;
    private final CosmosContainer feed;
    private final CosmosChanges changes;
    private final CosmosFeedMode mode;
    private final List<CosmosFeedPosition.Range> ranges;

    private CosmosFeedSource(CosmosAccount account, ContainerProperties container, CosmosContainer feed,
            CosmosFeedPosition position) {
        this.account = account;
        this.container = container;
        this.feed = feed;
        this.changes = new CosmosChanges(container);
        this.mode = position.mode();
        this.ranges = new ArrayList<>(position.ranges());
    }

    /**
     * @throws IllegalStateException when the container's mirror was made from another source (the store's change
     *     feed, Kafka), whose positions mean nothing in the account
     * @throws MirrorException with {@code SOURCE_UNAVAILABLE} when the account does not answer
     */
    static CosmosFeedSource open(CosmosAccount account, ContainerProperties container, Checkpoint from) {
        if (from.continuation() != null || from.isKafka()) {
            throw new IllegalStateException("Cannot mirror container " + container.id() + " from the Cosmos DB "
                    + "account at " + account.endpoint() + ": its mirror was made from docmirror's store or Kafka "
                    + "(its checkpoint holds " + from.positions() + "); mirror it with the source it was made from, "
                    + "or delete its mirror to load it again from the account");
        }
        CosmosContainer feed = account.container(container.id());
        CosmosFeedPosition position = from.isCosmos()
                ? CosmosFeedPosition.fromJson(container.id(), from.cosmosFeed())
                : call(account, container, () -> start(account, container, feed));
        if (position.ranges().size() != container.logPartitions()) {
            throw new IllegalStateException("Cannot mirror container " + container.id() + " from the Cosmos DB "
                    + "account at " + account.endpoint() + ": it has " + container.logPartitions() + " feed ranges "
                    + "and its mirror was made with " + position.ranges().size() + " (a partition split, which "
                    + "docmirror does not follow yet); delete its mirror to load it again");
        }
        return new CosmosFeedSource(account, container, feed, position);
    }

    /** A container first mirrored: the all-versions position "now" of each range, or latest-version mode. */
    private static CosmosFeedPosition start(CosmosAccount account, ContainerProperties container,
            CosmosContainer feed) {
        List<FeedRange> feedRanges = feed.getFeedRanges();
        List<CosmosFeedPosition.Range> ranges = new ArrayList<>();
        for (FeedRange range : feedRanges) {
            FeedResponse<JsonNode> now;
            try {
                now = firstPage(feed, CosmosChangeFeedRequestOptions.createForProcessingFromNow(range)
                        .allVersionsAndDeletes(), 1);
            } catch (CosmosException e) {
                if (e.getStatusCode() != 400) {
                    throw e;
                }
                log.warn("The Cosmos DB account at {} does not offer the all versions and deletes change feed for "
                        + "{} ({}): mirroring it from the latest version, which sees neither deletes nor "
                        + "intermediate versions", account.endpoint(), container.id(), e.getShortMessage());
                return new CosmosFeedPosition(CosmosFeedMode.LATEST_VERSION, feedRanges.stream()
                        .map(each -> CosmosFeedPosition.Range.start(each.toString(), null, 0)).toList());
            }
            ranges.add(CosmosFeedPosition.Range.start(range.toString(), now.getContinuationToken(),
                    lsnOf(now.getContinuationToken())));
        }
        return new CosmosFeedPosition(CosmosFeedMode.ALL_VERSIONS_AND_DELETES, ranges);
    }

    @Override
    public Changes read(int maxEvents) {
        return call(account, container, () -> {
            List<ChangeEvent> events = new ArrayList<>();
            boolean caughtUp = true;
            for (int index = 0; index < ranges.size(); index++) {
                if (events.size() >= maxEvents) {
                    caughtUp = false;
                    break;
                }
                caughtUp &= read(index, maxEvents - events.size(), events);
            }
            return new Changes(events, caughtUp);
        });
    }

    /** Reads one page of a feed range into {@code events}; returns whether the range had nothing more. */
    private boolean read(int index, int maxEvents, List<ChangeEvent> events) {
        CosmosFeedPosition.Range range = ranges.get(index);
        if (!range.loaded() || mode == CosmosFeedMode.LATEST_VERSION) {
            return readLatestVersion(index, range, maxEvents, events);
        }
        return readAllVersions(index, range, maxEvents, events);
    }

    private boolean readLatestVersion(int index, CosmosFeedPosition.Range range, int maxEvents,
            List<ChangeEvent> events) {
        FeedRange feedRange = FeedRange.fromString(range.feedRange());
        FeedResponse<JsonNode> page = firstPage(feed, range.latestVersion() == null
                ? CosmosChangeFeedRequestOptions.createForProcessingFromBeginning(feedRange)
                : CosmosChangeFeedRequestOptions.createForProcessingFromContinuation(range.latestVersion()),
                maxEvents);
        long loadedTo = range.loadedTo();
        Map<String, Long> loadedAbove = new HashMap<>(range.loadedAbove());
        for (JsonNode document : page.getResults()) {
            ChangeEvent event = changes.latestVersion(document);
            events.add(event);
            loadedTo = Math.max(loadedTo, event.lsn());
            if (mode == CosmosFeedMode.ALL_VERSIONS_AND_DELETES && event.lsn() > range.allVersionsFrom()) {
                loadedAbove.put(key(event), event.lsn());
            }
        }
        boolean done = page.getResults().isEmpty();
        long reached = mode == CosmosFeedMode.LATEST_VERSION ? loadedTo : 0;
        ranges.set(index, new CosmosFeedPosition.Range(range.feedRange(), page.getContinuationToken(),
                range.loaded() || done, range.allVersions(), range.allVersionsFrom(), loadedTo, loadedAbove, reached));
        // Loading with all versions to follow, the range is caught up only once that feed is.
        return done && mode == CosmosFeedMode.LATEST_VERSION;
    }

    private boolean readAllVersions(int index, CosmosFeedPosition.Range range, int maxEvents,
            List<ChangeEvent> events) {
        FeedResponse<JsonNode> page = firstPage(feed, CosmosChangeFeedRequestOptions
                .createForProcessingFromContinuation(range.allVersions()).allVersionsAndDeletes(), maxEvents);
        Map<String, Long> loadedAbove = new HashMap<>(range.loadedAbove());
        long reached = range.reached();
        for (JsonNode change : page.getResults()) {
            ChangeEvent event = changes.allVersions(change);
            if (event.lsn() > range.loadedTo()) {
                reached = Math.max(reached, event.lsn());
            }
            if (event.lsn() <= loadedAbove.getOrDefault(key(event), 0L)) {
                continue; // the load gave the mirror this version or a newer one
            }
            events.add(event);
        }
        boolean caughtUp = page.getResults().isEmpty();
        if (caughtUp) {
            // Read up to now: every change up to the load's end has passed, so nothing more is skipped, and the
            // mirror holds the range as it is at the feed's position (past deletes the load could not see).
            loadedAbove.clear();
            reached = Math.max(reached, Math.max(range.loadedTo(), lsnOf(page.getContinuationToken())));
        }
        ranges.set(index, new CosmosFeedPosition.Range(range.feedRange(), range.latestVersion(), true,
                page.getContinuationToken(), range.allVersionsFrom(), range.loadedTo(), loadedAbove, reached));
        return caughtUp;
    }

    /** The first page of a change feed read, holding at most {@code maxItems} changes. */
    private static FeedResponse<JsonNode> firstPage(CosmosContainer feed, CosmosChangeFeedRequestOptions options,
            int maxItems) {
        options.setMaxItemCount(maxItems);
        Iterator<FeedResponse<JsonNode>> pages = feed.queryChangeFeed(options, JsonNode.class)
                .iterableByPage(maxItems).iterator();
        if (!pages.hasNext()) {
            throw new IllegalStateException("The Cosmos DB SDK's change feed gave no page, not even an empty one");
        }
        return pages.next();
    }

    private static String key(ChangeEvent event) {
        return event.partitionKey().jsonText() + "\u0000" + event.id();
    }

    /**
     * The LSN a change feed continuation of the SDK stands at: the smallest of its ranges' tokens, each the
     * {@code etag} the account answered (the LSN read up to, in quotes). The SDK writes a continuation as base64url
     * JSON; a token that is not a number counts as 0, which only makes the load remember more items.
     */
    static long lsnOf(String continuation) {
        try {
            JsonNode state = JSON.readTree(new String(Base64.getUrlDecoder().decode(continuation),
                    StandardCharsets.UTF_8));
            long lsn = Long.MAX_VALUE;
            for (JsonNode token : state.findValues("token")) {
                String text = token.asText().replace("\"", "");
                lsn = Math.min(lsn, text.matches("[0-9]{1,18}") ? Long.parseLong(text) : 0);
            }
            return lsn == Long.MAX_VALUE ? 0 : lsn;
        } catch (IOException | IllegalArgumentException e) {
            log.warn("Cannot read where a change feed continuation of the Cosmos DB SDK stands ({}); the load "
                    + "remembers every item it reads", e.getMessage());
            return 0;
        }
    }

    @Override
    public Checkpoint checkpoint() {
        Map<Integer, Long> reached = new TreeMap<>();
        Map<Integer, Long> historyFrom = new TreeMap<>();
        for (int index = 0; index < ranges.size(); index++) {
            CosmosFeedPosition.Range range = ranges.get(index);
            if (range.reached() > 0) {
                reached.put(index, range.reached());
            }
            if (range.loaded()) {
                // Latest version: the history never holds every change; all versions: it does after the load, and
                // the deletes before the all-versions feed began are in no feed.
                historyFrom.put(index, mode == CosmosFeedMode.LATEST_VERSION ? range.reached()
                        : Math.max(range.loadedTo(), range.allVersionsFrom()));
            }
        }
        return Checkpoint.ofCosmosFeed(new CosmosFeedPosition(mode, ranges).toJson(),
                reached.isEmpty() ? null : new ContinuationToken(container.id(), reached).encode(), historyFrom);
    }

    /** The read that ends a load or catches up with the all-versions feed may find nothing, yet moves the position. */
    @Override
    public boolean commitsPositionAlone() {
        return true;
    }

    @Override
    public String gapRemedy(String container) {
        return "delete the container's mirror (its directory under the mirror) and run the mirror again: it loads "
                + "the container from the account's latest-version feed, then streams on.";
    }

    @Override
    public void close() {
        // The account's client is shared by every container and closed with the account.
    }

    /** Runs calls to the account, a failure to reach it being a {@code SOURCE_UNAVAILABLE}
     * {@link MirrorException}. */
    private static <T> T call(CosmosAccount account, ContainerProperties container, Supplier<T> calls) {
        try {
            return calls.get();
        } catch (CosmosException e) {
            StoreException failure = account.failure("read the change feed of " + container.id() + " in", e);
            if (failure.isRetriable()) {
                throw new MirrorException(MirrorErrorCode.SOURCE_UNAVAILABLE, failure.getMessage(), failure);
            }
            throw failure;
        }
    }
}
