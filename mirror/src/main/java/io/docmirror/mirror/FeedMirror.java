package io.docmirror.mirror;

import io.docmirror.feed.ChangeFeedException;
import io.docmirror.feed.processor.ChangeFeedEstimator;
import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.mirror.iceberg.ContainerTables;
import io.docmirror.mirror.source.ChangeSource;
import io.docmirror.mirror.source.EmbeddedFeedSource;
import io.docmirror.mirror.source.SourceContainers;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.SnapshotSource;
import io.docmirror.store.StoreClient;
import io.docmirror.store.StoreErrorCode;
import io.docmirror.store.StoreException;
import io.docmirror.store.changelog.ChangeEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.UnaryOperator;

import static java.util.Objects.requireNonNull;

/**
 * Mirrors every mirrored container of a store (analytical TTL -1 or positive) from a {@link ChangeSource} (the
 * store's own change feed, all versions and deletes, or the container's Kafka topic), each container resuming from
 * the checkpoint in its tables' last snapshot. {@link #sync} catches up and returns, for batch jobs; {@link #run} keeps going
 * until stopped, committing a batch when it is full or its first change is {@code mirror.batch.max-interval-ms} old.
 * Single-threaded: one {@code FeedMirror} per store. A container mirrored for the first time with a long change feed
 * is loaded from a snapshot of the store first, when the store is at hand ({@link #loadFromSnapshot}).
 *
 * <p>Containers are mirrored independently: one that cannot be mirrored (a lost feed position, an unfinished
 * backfill, a mirror another process holds, a file it cannot write) stays at its last committed version while the
 * others go on. The daemon tries it again after a pause that doubles with each failure in a row, and waits out a
 * change source that does not answer (a store that restarts, an unreachable Kafka broker) the same way.
 */
public final class FeedMirror implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(FeedMirror.class);
    private static final int PAGE_SIZE = 1000;
    /** The daemon looks for newly created (or newly mirrored) containers every this many poll intervals. */
    private static final int POLLS_BETWEEN_CONTAINER_LOOKUPS = 10;
    private static final Duration MAX_RETRY_DELAY = Duration.ofMinutes(1);
    private static final Duration UPKEEP_RETRY_DELAY = Duration.ofMinutes(1);

    private final SourceContainers containers;
    /**
     * The store's snapshots, for a container's first load, and the store itself; null when the store is reached over
     * the network or the source is not docmirror's store.
     */
    private final SnapshotSource snapshots;
    private final StoreClient store;
    private final ChangeSource.Opener changeSources;
    private final Path mirrorDirectory;
    private final MirrorConfig config;
    private final Function<String, FlattenerConfig> flattenerConfigs;
    private final Clock clock;
    private final Map<String, Source> sources = new LinkedHashMap<>();
    private final Map<String, MirrorActivity> activity = new ConcurrentHashMap<>();
    private final Map<String, MirrorHealth> health = new ConcurrentHashMap<>();
    /** True while the daemon cannot look up the store's containers, so that an outage is logged once. */
    private boolean containerLookupFailing;
    private volatile boolean stopped;
    /** Documents loaded from snapshots of the store so far, for {@link SyncResult#documentsLoaded}. */
    private long documentsLoaded;

    /** One container's mirror with its change source and the batch being filled. */
    private static final class Source {
        /** The container as last listed; replaced when it was deleted and created again ({@link #recreated}). */
        ContainerProperties container;
        /** Opened at the container's first read; null until then, and while opening it fails. */
        MirrorTarget mirror;
        /** Opened at the mirror's checkpoint before a read; null until then, and after a failure. */
        ChangeSource changes;
        MirrorTarget.Batch batch;
        /** When the open batch's first change was read, and when the store committed it (its clock). */
        long batchReadAt;
        long batchFirstCommitAt;
        /** Failures in a row (an I/O error, an outage of the source, any other error); 0 once it goes on. */
        int failuresInARow;
        long retryAt;
        /** When the container's upkeep (compaction, snapshot expiry) may run again after it failed. */
        long upkeepRetryAt;

        Source(ContainerProperties container) {
            this.container = container;
        }

        String name() {
            return container.id();
        }
    }

    /**
     * What one {@link #sync} did.
     *
     * @param documentsLoaded documents of containers mirrored for the first time, loaded from a snapshot of the store
     * @param events changes read from the change source
     */
    public record SyncResult(long documentsLoaded, long events, long commits) {
        /**
         * What the sync mirrored, in words: {@code 1,200 changes}, or {@code 100,000 documents from a snapshot of the
         * store and 12 changes since}.
         */
        public String describe() {
            return documentsLoaded == 0 ? String.format(Locale.ROOT, "%,d changes", events)
                    : String.format(Locale.ROOT, "%,d documents from a snapshot of the store and %,d changes since",
                            documentsLoaded, events);
        }
    }

    /** A mirror of the store's containers from the store's own change feed. */
    public FeedMirror(StoreClient store, Path mirrorDirectory, MirrorConfig config,
            Function<String, FlattenerConfig> flattenerConfigs, Clock clock) {
        this(store, EmbeddedFeedSource.opener(store), mirrorDirectory, config, flattenerConfigs, clock);
    }

    /**
     * @param store where the mirror learns which containers to mirror, with their analytical TTL
     * @param changeSources where each container's changes come from
     * @param flattenerConfigs the flattener configuration of each container, by container name
     */
    public FeedMirror(StoreClient store, ChangeSource.Opener changeSources, Path mirrorDirectory, MirrorConfig config,
            Function<String, FlattenerConfig> flattenerConfigs, Clock clock) {
        this(containersOf(requireNonNull(store, "store is null")), store instanceof SnapshotSource ? store : null,
                changeSources, mirrorDirectory, config, flattenerConfigs, clock);
    }

    /**
     * The store's containers as a mirror's source: the check before each commit reads the one container ({@code GET
     * /containers/{c}} over HTTP) rather than listing them all.
     */
    private static SourceContainers containersOf(StoreClient store) {
        return new SourceContainers() {
            @Override
            public List<ContainerProperties> listContainers() {
                return store.listContainers();
            }

            @Override
            public Optional<ContainerProperties> readContainer(String id) {
                try {
                    return Optional.of(store.readContainer(id));
                } catch (StoreException e) {
                    if (e.code() == StoreErrorCode.NOT_FOUND) {
                        return Optional.empty();
                    }
                    throw e;
                }
            }
        };
    }

    /**
     * A mirror of a source other than docmirror's store (a Cosmos DB account), whose change sources load a container
     * first mirrored themselves.
     *
     * @param containers where the mirror learns which containers to mirror, with their analytical TTL
     */
    public FeedMirror(SourceContainers containers, ChangeSource.Opener changeSources, Path mirrorDirectory,
            MirrorConfig config, Function<String, FlattenerConfig> flattenerConfigs, Clock clock) {
        this(containers, null, changeSources, mirrorDirectory, config, flattenerConfigs, clock);
    }

    /** @param localStore the store in this process, whose snapshots load a container first mirrored; or null */
    private FeedMirror(SourceContainers containers, StoreClient localStore, ChangeSource.Opener changeSources,
            Path mirrorDirectory, MirrorConfig config, Function<String, FlattenerConfig> flattenerConfigs,
            Clock clock) {
        this.containers = requireNonNull(containers, "containers is null");
        this.store = localStore;
        this.snapshots = (SnapshotSource) localStore;
        this.changeSources = requireNonNull(changeSources, "changeSources is null");
        this.mirrorDirectory = requireNonNull(mirrorDirectory, "mirrorDirectory is null");
        this.config = requireNonNull(config, "config is null");
        this.flattenerConfigs = requireNonNull(flattenerConfigs, "flattenerConfigs is null");
        this.clock = requireNonNull(clock, "clock is null");
    }

    /**
     * Mirrors everything committed to the store so far, commits, and returns.
     *
     * @throws RuntimeException the first container's failure, with the others' suppressed, once every other container
     *     is mirrored: one container that cannot be mirrored does not hold the others back
     * @throws MirrorException with {@code SOURCE_UNAVAILABLE} at once when the change source does not answer: a
     *     one-shot sync does not wait for it (the daemon does)
     * @throws StoreException when the store cannot list its containers
     */
    public SyncResult sync() {
        long loadedBefore = documentsLoaded;
        long events = 0;
        long commits = 0;
        List<RuntimeException> failures = new ArrayList<>();
        for (Source source : refreshSources()) {
            try {
                while (true) {
                    ChangeSource.Changes page = read(source);
                    boolean full = source.batch != null && source.batch.events() >= config.batchMaxEvents();
                    if (full || (page.caughtUp() && source.batch != null)) {
                        events += commit(source);
                        commits++;
                    }
                    if (page.caughtUp()) {
                        break;
                    }
                }
                // A sync leaves the mirror compacted when it is due, so that batch jobs need no daemon for it.
                maintain(source);
            } catch (RuntimeException e) {
                stopReading(source, e);
                MirrorErrorCode code = MirrorErrorCode.of(e);
                if (code == MirrorErrorCode.SOURCE_UNAVAILABLE) {
                    failures.forEach(e::addSuppressed);
                    throw e;
                }
                log.error("Cannot mirror container {} ({}); it stays at {}, the other containers go on",
                        source.name(), code, committedVersion(source), e);
                failures.add(e);
            }
        }
        if (!failures.isEmpty()) {
            RuntimeException first = failures.get(0);
            failures.subList(1, failures.size()).forEach(first::addSuppressed);
            throw first;
        }
        return new SyncResult(documentsLoaded - loadedBefore, events, commits);
    }

    /** Mirrors continuously until {@link #stop} (or an interrupt); commits what it holds before returning. */
    public void run() throws InterruptedException {
        long lastRefresh = 0;
        while (!stopped && !Thread.currentThread().isInterrupted()) {
            if (clock.millis() - lastRefresh >= config.pollInterval().toMillis() * POLLS_BETWEEN_CONTAINER_LOOKUPS) {
                lookUpContainers();
                lastRefresh = clock.millis();
            }
            boolean allCaughtUp = true;
            for (Source source : sources.values()) {
                if (clock.millis() < source.retryAt) {
                    continue;
                }
                try {
                    ChangeSource.Changes page = read(source);
                    allCaughtUp &= page.caughtUp();
                    if (source.batch != null && isDue(source, page.caughtUp())) {
                        commit(source);
                        source.failuresInARow = 0;
                    }
                    recovered(source);
                } catch (RuntimeException e) {
                    retryLater(source, e);
                }
                if (source.batch == null && source.mirror != null && clock.millis() >= source.upkeepRetryAt) {
                    maintainOrRetryLater(source);
                }
            }
            if (allCaughtUp) {
                Thread.sleep(untilNextPoll());
            }
        }
        for (Source source : sources.values()) {
            if (source.batch != null) {
                commit(source);
            }
        }
    }

    /**
     * A batch is due when it is full, or when its first change has waited {@code mirror.batch.max-interval-ms}:
     * counted from the change's commit in the store once the source is caught up, so that the time the change waited
     * to be read counts too, and from its read while the source works through a backlog, so that a backlog of old
     * changes still fills batches rather than being committed page by page. (The read time also bounds the wait when
     * the store's clock runs ahead of this one.)
     */
    private boolean isDue(Source source, boolean caughtUp) {
        long now = clock.millis();
        long interval = config.batchMaxInterval().toMillis();
        return source.batch.events() >= config.batchMaxEvents()
                || now - source.batchReadAt >= interval
                || caughtUp && now - source.batchFirstCommitAt >= interval;
    }

    /** How long a caught-up daemon sleeps: a poll interval, or less when an open batch falls due sooner. */
    private long untilNextPoll() {
        long now = clock.millis();
        long sleep = config.pollInterval().toMillis();
        for (Source source : sources.values()) {
            if (source.batch != null) {
                long due = Math.min(source.batchReadAt, source.batchFirstCommitAt)
                        + config.batchMaxInterval().toMillis();
                sleep = Math.min(sleep, Math.max(1, due - now));
            }
        }
        return sleep;
    }

    public void stop() {
        stopped = true;
    }

    @Override
    public void close() {
        RuntimeException failure = null;
        for (Source source : sources.values()) {
            try {
                close(source);
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        sources.clear();
        if (failure != null) {
            throw failure;
        }
    }

    /** Closes a container's change source, then its mirror; either is null when it never opened. */
    private static void close(Source source) {
        try {
            if (source.changes != null) {
                source.changes.close();
            }
        } finally {
            if (source.mirror != null) {
                source.mirror.close();
            }
        }
    }

    private ChangeSource.Changes read(Source source) {
        open(source);
        // A page never overfills the batch, so batches hold at most mirror.batch.max-events changes.
        long room = config.batchMaxEvents() - (source.batch == null ? 0 : source.batch.events());
        ChangeSource.Changes page = readNext(source, (int) Math.min(PAGE_SIZE, room));
        if (!page.events().isEmpty()) {
            if (source.batch == null) {
                source.batch = source.mirror.begin();
                source.batchReadAt = clock.millis();
                source.batchFirstCommitAt = page.events().get(0).ts();
            }
            for (ChangeEvent event : page.events()) {
                source.batch.add(event);
            }
        } else if (page.caughtUp() && source.batch == null && source.changes.commitsPositionAlone()
                && !source.changes.checkpoint().equals(source.mirror.checkpoint())) {
            // A batch of no changes, to commit where the source stands.
            source.batch = source.mirror.begin();
            source.batchReadAt = clock.millis();
            source.batchFirstCommitAt = 0;
        }
        return page;
    }

    private static ChangeSource.Changes readNext(Source source, int maxEvents) {
        try {
            return source.changes.read(maxEvents);
        } catch (ChangeFeedException e) {
            if (e.code() != StoreErrorCode.GONE) {
                throw e;
            }
            // Skipping the lost changes would leave the mirror silently wrong; only a new snapshot can mend it.
            String version = source.mirror.position();
            throw new MirrorException(MirrorErrorCode.POSITION_LOST, "Cannot mirror container "
                    + source.mirror.container() + " any further: " + e.getMessage() + " The mirror stops at " + version
                    + " rather than skip those changes: "
                    + source.changes.gapRemedy(source.mirror.container()), e);
        }
    }

    /**
     * After a failure the batch is dropped uncommitted, so the mirror stays at its last version, and the container is
     * read again from that version's checkpoint after a pause that doubles with each failure in a row, up to
     * {@link #MAX_RETRY_DELAY}. What is reported goes by the failure's {@link MirrorErrorCode}: a source that does not
     * answer is an outage, any other retriable failure (an I/O error, a commit whose outcome is unknown) a failed
     * batch, and a failure that is not retriable the container's own, shown as failing until it goes on again (it
     * needs someone to act, but does not stop the other containers).
     */
    private void retryLater(Source source, RuntimeException failure) {
        stopReading(source, failure);
        source.failuresInARow++;
        long delay = Math.min(MAX_RETRY_DELAY.toMillis(),
                config.pollInterval().toMillis() << Math.min(20, source.failuresInARow - 1));
        long now = clock.millis();
        source.retryAt = now + delay;
        String version = committedVersion(source);
        MirrorErrorCode code = MirrorErrorCode.of(failure);
        if (code == MirrorErrorCode.SOURCE_UNAVAILABLE) {
            boolean outageBegins = health.get(source.name()).sourceUnreachableSince() == 0;
            MirrorHealth outage = updateHealth(source, current -> current.withSourceFailure(now));
            String message = "Cannot read the changes of {} ({}: {}): the mirror stays at {}; unreachable for {} s, "
                    + "retrying in {} ms";
            if (outageBegins) {
                log.warn(message, source.name(), code, failure.getMessage(), version, 0, delay, failure);
            } else {
                // The outage's first failure was logged with its cause; the retries only say that it goes on.
                log.warn(message, source.name(), code, failure.getMessage(), version,
                        outage.sourceUnreachableFor(now).toSeconds(), delay);
            }
        } else if (code.retriable()) {
            record(new MirrorActivity(source.name(), 0, 0, 0, 0, 0, 0, 1));
            log.warn("Cannot mirror {} ({}, {} failure{} in a row): the batch is not committed, the mirror stays at "
                            + "{}; retrying in {} ms", source.name(), code, source.failuresInARow,
                    source.failuresInARow == 1 ? "" : "s", version, delay, failure);
        } else {
            updateHealth(source, current -> current.withFailure(code, Objects.requireNonNullElse(
                    failure.getMessage(), failure.toString())));
            log.error("Cannot mirror {} ({}, {} failure{} in a row): the mirror stays at {} while the other "
                            + "containers go on; retrying in {} ms", source.name(), code, source.failuresInARow,
                    source.failuresInARow == 1 ? "" : "s", version, delay, failure);
        }
    }

    /** After a read (and commit) that went through: an outage or failure of the container is over. */
    private void recovered(Source source) {
        MirrorHealth before = health.get(source.name());
        if (before.sourceUnreachableSince() == 0 && before.failure() == null) {
            return;
        }
        source.failuresInARow = 0;
        updateHealth(source, current -> current.withSourceAnswering().withFailure(null, null));
        log.info("Mirroring {} again{}", source.name(), before.sourceUnreachableSince() == 0 ? ""
                : " after its change source did not answer for "
                        + before.sourceUnreachableFor(clock.millis()).toSeconds() + " s");
    }

    /**
     * Drops the open batch uncommitted and closes the change source, which is reopened at the mirror's checkpoint by
     * the next read (and the mirror too, when a commit left it out of step with its catalog). Failures to do so are
     * added to {@code failure}.
     */
    private static void stopReading(Source source, RuntimeException failure) {
        if (source.batch != null) {
            try {
                source.batch.abort();
            } catch (RuntimeException e) {
                // Its files stay behind until the mirror next opens and removes what no snapshot lists.
                failure.addSuppressed(e);
            }
            source.batch = null;
        }
        if (source.changes != null) {
            try {
                source.changes.close();
            } catch (RuntimeException e) {
                failure.addSuppressed(e);
            }
            source.changes = null;
        }
        if (source.mirror != null && source.mirror.needsReopening()) {
            // A commit whose outcome is unknown: the next read opens the tables again, at what the catalog holds.
            try {
                source.mirror.close();
            } catch (RuntimeException e) {
                failure.addSuppressed(e);
            }
            source.mirror = null;
        }
    }

    private static String committedVersion(Source source) {
        return source.mirror == null ? "its last committed version" : source.mirror.position();
    }

    private MirrorHealth updateHealth(Source source, UnaryOperator<MirrorHealth> change) {
        return health.compute(source.name(), (container, current) -> change.apply(current));
    }

    /** The container's upkeep between batches; a compaction it commits is counted in {@link #activity}. */
    private void maintain(Source source) {
        countCompaction(source, source.mirror.maintain());
    }

    private void countCompaction(Source source, boolean compacted) {
        if (compacted) {
            record(new MirrorActivity(source.mirror.container(), 0, 0, 0, 0, 1, 0, 0));
        }
    }

    /**
     * The daemon's upkeep. A compaction's rows are rewritten on a thread of its own while batches go on being
     * committed; once rewritten, it is committed with the next batch (or here, when none came since). A failure (a
     * compaction or a snapshot expiry that an I/O error or another writer stopped) is counted and logged, and the
     * container goes on being mirrored into its delta files; the upkeep is tried again {@link #UPKEEP_RETRY_DELAY}
     * later. What failed left the tables as they were (each step is its own catalog commit), or, when its commit's
     * outcome is unknown, the tables are opened again from the catalog before the next batch.
     */
    private void maintainOrRetryLater(Source source) {
        try {
            countCompaction(source, source.mirror.maintainInBackground());
        } catch (RuntimeException e) {
            if (source.mirror.needsReopening()) {
                // Its commit's outcome is unknown: the tables are opened again before the next batch.
                stopReading(source, e);
            }
            source.upkeepRetryAt = clock.millis() + UPKEEP_RETRY_DELAY.toMillis();
            record(new MirrorActivity(source.name(), 0, 0, 0, 0, 0, 1, 0));
            log.error("The upkeep of container {} (compaction, snapshot expiry) failed; mirroring goes on and it is "
                    + "tried again in {} s", source.name(), UPKEEP_RETRY_DELAY.toSeconds(), e);
        }
    }

    /**
     * Commits the open batch and returns how many changes it held; none when the container turned out to be deleted
     * and created again, whose mirror then starts again ({@link #recreated}).
     */
    private long commit(Source source) {
        // Every change of the batch was read before this look-up: when it still finds the container the source was
        // opened for, none of them can come from a container created again since under the same name.
        Optional<ContainerProperties> now = containers.readContainer(source.name());
        if (now.isPresent() && isRecreated(source.container, now.get())) {
            recreated(source, now.get());
            return 0;
        }
        MirrorTarget.Batch batch = source.batch;
        source.batch = null;
        long events = batch.events();
        long started = System.nanoTime();
        // Every change the source returned is in the batch, so the source's position is where the batch ends.
        MirrorTarget.Committed commit = batch.commit(source.changes.checkpoint());
        record(new MirrorActivity(source.mirror.container(), events, 1, commit.files(), commit.bytes(),
                commit.compacted() ? 1 : 0, 0, 0));
        log.debug("Committed {} of the mirror of {}: {} changes in {} ms{}", commit.position(),
                source.mirror.container(), events, (System.nanoTime() - started) / 1_000_000,
                commit.compacted() ? ", a compaction with them" : "");
        return events;
    }

    private void record(MirrorActivity more) {
        activity.merge(more.container(), more, MirrorActivity::plus);
    }

    /** What this mirror has done per container since it was created; safe to call from any thread. */
    public List<MirrorActivity> activity() {
        return List.copyOf(activity.values());
    }

    /** How each container this mirror knows fares now; safe to call from any thread. */
    public List<MirrorHealth> health() {
        return List.copyOf(health.values());
    }

    /**
     * Opens what the container's next read needs: its mirror (once), and its change source where the mirror's last
     * committed version ends.
     */
    private void open(Source source) {
        if (source.mirror == null) {
            source.mirror = openMirror(source.container);
        }
        if (source.changes == null) {
            source.changes = changeSources.open(source.container, source.mirror.checkpoint());
        }
    }

    private MirrorTarget openMirror(ContainerProperties container) {
        ContainerTables tables = ContainerTables.open(mirrorDirectory, container,
                flattenerConfigs.apply(container.id()), config, clock);
        if (snapshots != null
                && (tables.backfill().isPresent() || tables.batches() == 0 && worthASnapshot(container))) {
            tables.close();
            loadFromSnapshot(container);
            tables = ContainerTables.open(mirrorDirectory, container, flattenerConfigs.apply(container.id()), config,
                    clock);
        }
        ContainerTables opened = tables;
        tables.backfill().ifPresent(backfill -> {
            // Closed, the tables are free for the backfill to finish while the other containers go on.
            MirrorException unfinished = new MirrorException(MirrorErrorCode.BACKFILL_UNFINISHED, "Cannot mirror "
                    + "container " + container.id() + ": its backfill has not finished (" + backfill.rangeLsns().size()
                    + " of "
                    + backfill.feedRanges() + " feed ranges done); run `docmirror backfill --container "
                    + container.id() + "` again to finish it");
            try {
                opened.close();
            } catch (RuntimeException suppressed) {
                unfinished.addSuppressed(suppressed);
            }
            throw unfinished;
        });
        log.info("Mirroring container {} from {}", container.id(), tables.position());
        return tables;
    }

    /**
     * Whether a first mirror of the container is loaded from a snapshot: when its change feed holds enough changes,
     * or no longer starts at the container's beginning (retention has trimmed it), where replaying would stop at the
     * lost changes.
     */
    private boolean worthASnapshot(ContainerProperties container) {
        long threshold = config.snapshotLoadAbove();
        if (threshold < 0) {
            return false;
        }
        List<ChangeFeedEstimator.Lag> feed = ChangeFeedEstimator.estimate(store, container.id(), Optional.empty(),
                clock);
        // From the beginning, a feed range's position is the oldest its log still holds: 0 until retention trims.
        boolean trimmed = feed.stream().anyMatch(range -> range.checkpointLsn() > 0);
        return trimmed || ChangeFeedEstimator.eventsBehind(feed) >= threshold;
    }

    /**
     * A container's first load (or the rest of one a killed process began): the documents the store holds now, read
     * from a snapshot of each feed range straight into the tables by a {@link Backfill}, rather than every change
     * the change log still holds replayed one by one. The change source then goes on from each range's snapshot, with
     * no gap and no duplicate. As with Debezium's initial snapshot, the history starts there: it holds each
     * document's version at the snapshot, not the versions before it.
     */
    private void loadFromSnapshot(ContainerProperties container) {
        log.info("Loading container {} from a snapshot of the store, then following its changes", container.id());
        try {
            Backfill.Result loaded = new Backfill(snapshots, mirrorDirectory, config,
                    flattenerConfigs.apply(container.id()), clock).run(container.id(), Backfill.Listener.NONE);
            documentsLoaded += loaded.items();
            record(new MirrorActivity(container.id(), loaded.items(), 0, 0, 0, 0, 0, 0));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new MirrorException(MirrorErrorCode.INTERRUPTED, "Interrupted while loading container "
                    + container.id() + " from a snapshot; the next start goes on where it stopped", e);
        }
    }

    /**
     * The daemon's periodic lookup of new containers. A store that does not answer is logged once: the containers'
     * own reads wait the outage out, and the next lookup tries again.
     */
    private void lookUpContainers() {
        try {
            refreshSources();
        } catch (StoreException e) {
            if (!e.isRetriable()) {
                throw e;
            }
            if (!containerLookupFailing) {
                log.warn("Cannot look up the store's containers ({}); trying again every {} ms", e.getMessage(),
                        config.pollInterval().toMillis() * POLLS_BETWEEN_CONTAINER_LOOKUPS, e);
            }
            containerLookupFailing = true;
            return;
        }
        if (containerLookupFailing) {
            log.info("The store lists its containers again");
            containerLookupFailing = false;
            // The store answers: the containers waiting out its outage are read now, not at their next retry.
            for (Source source : sources.values()) {
                if (health.get(source.name()).sourceUnreachableSince() != 0) {
                    source.retryAt = 0;
                }
            }
        }
    }

    /**
     * Adds a source for each mirrored container not known yet (each opens at its first read), starts again the
     * mirror of each container deleted and created again ({@link #recreated}), and lets go of each container the
     * source no longer has ({@link #letGo}).
     */
    private List<Source> refreshSources() {
        Map<String, ContainerProperties> listed = new LinkedHashMap<>();
        for (ContainerProperties container : containers.listContainers()) {
            if (container.isMirrored()) {
                listed.put(container.id(), container);
            }
        }
        for (Source known : new ArrayList<>(sources.values())) {
            ContainerProperties now = listed.get(known.name());
            if (now == null) {
                letGo(known);
            } else if (isRecreated(known.container, now)) {
                recreated(known, now);
            }
        }
        for (ContainerProperties container : listed.values()) {
            if (!sources.containsKey(container.id())) {
                sources.put(container.id(), new Source(container));
                health.put(container.id(), MirrorHealth.healthy(container.id()));
            }
        }
        return new ArrayList<>(sources.values());
    }

    /**
     * Stops following a container the source no longer has (deleted, or no longer mirrored): its open batch (changes
     * of a container that is gone) is dropped uncommitted, and its change source and tables are closed; the tables
     * stay as last committed. Retrying it would fail forever.
     */
    private void letGo(Source source) {
        log.warn("Container {} is gone from the source (deleted, or no longer mirrored): its mirror stays at {} and is "
                + "no longer followed", source.name(), committedVersion(source));
        sources.remove(source.name());
        health.remove(source.name());
        closeMirror(source, "Cannot close the mirror of container " + source.name()
                + ", which the source no longer has");
    }

    /** Whether {@code listed} is another container than {@code known} under the same name: another {@code _rid}. */
    private static boolean isRecreated(ContainerProperties known, ContainerProperties listed) {
        return !ContainerProperties.mayBeSameContainer(known.resourceId(), listed.resourceId());
    }

    /**
     * The container was deleted and created again while mirrored: a new container, whose change log starts again
     * from its first LSN. Its open batch is dropped, and the next read opens its tables for the new {@code _rid},
     * which drops the old container's tables ({@link ContainerTables#open}), and reads its changes from the start.
     */
    private void recreated(Source source, ContainerProperties container) {
        log.warn("Container {} was deleted and created again (_rid {} is now {}): the old container's mirror is "
                + "dropped, and the new one is mirrored from its first change", source.name(),
                source.container.resourceId(), container.resourceId());
        closeMirror(source, "Cannot close the mirror of container " + source.name()
                + ", which was deleted and created again");
        source.container = container;
        source.failuresInARow = 0;
        source.retryAt = 0;
        updateHealth(source, current -> MirrorHealth.healthy(source.name()));
    }

    /** Drops the open batch and closes the change source and the tables; failures to close are logged. */
    private static void closeMirror(Source source, String failureMessage) {
        IllegalStateException closing = new IllegalStateException(failureMessage);
        stopReading(source, closing);
        if (source.mirror != null) {
            try {
                source.mirror.close();
            } catch (RuntimeException e) {
                closing.addSuppressed(e);
            }
            source.mirror = null;
        }
        if (closing.getSuppressed().length > 0) {
            log.warn("{}; its tables stay as last committed, its files until they are opened again", failureMessage,
                    closing);
        }
    }
}
