package io.docmirror.mirror;

import io.docmirror.feed.ChangeFeedException;
import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.mirror.manifest.DataFile;
import io.docmirror.mirror.source.ChangeSource;
import io.docmirror.mirror.source.EmbeddedFeedSource;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.StoreClient;
import io.docmirror.store.StoreErrorCode;
import io.docmirror.store.changelog.ChangeEvent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

import static java.util.Objects.requireNonNull;

/**
 * Mirrors every mirrored container of a store (analytical TTL -1 or positive) from a {@link ChangeSource} (the
 * store's own change feed, all versions and deletes, or the container's Kafka topic), each container resuming from
 * the checkpoint in its last manifest. {@link #sync} catches up and returns, for batch jobs; {@link #run} keeps going
 * until stopped, committing a batch when it is full or its first change is {@code mirror.batch.max-interval-ms} old.
 * Single-threaded: one {@code FeedMirror} per store.
 */
public final class FeedMirror implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(FeedMirror.class);
    private static final int PAGE_SIZE = 1000;
    /** The daemon looks for newly created (or newly mirrored) containers every this many poll intervals. */
    private static final int POLLS_BETWEEN_CONTAINER_LOOKUPS = 10;
    private static final Duration MAX_RETRY_DELAY = Duration.ofMinutes(1);

    private final StoreClient store;
    private final ChangeSource.Opener changeSources;
    private final Path mirrorDirectory;
    private final MirrorConfig config;
    private final Function<String, FlattenerConfig> flattenerConfigs;
    private final Clock clock;
    private final Map<String, Source> sources = new LinkedHashMap<>();
    private final Map<String, MirrorActivity> activity = new ConcurrentHashMap<>();
    private final BackgroundCompactions compactions;
    private volatile boolean stopped;

    /** One container's mirror with its change source and the batch being filled. */
    private static final class Source {
        final ContainerProperties container;
        final ContainerMirror mirror;
        ChangeSource changes;
        ContainerMirror.Batch batch;
        /** When the open batch's first change was read, and when the store committed it (its clock). */
        long batchReadAt;
        long batchFirstCommitAt;
        /** Batches in a row that an I/O error stopped; 0 once one commits. */
        int failuresInARow;
        long retryAt;

        Source(ContainerProperties container, ContainerMirror mirror) {
            this.container = container;
            this.mirror = mirror;
        }
    }

    /** What one {@link #sync} did. */
    public record SyncResult(long events, long commits) {
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
        this.store = requireNonNull(store, "store is null");
        this.changeSources = requireNonNull(changeSources, "changeSources is null");
        this.mirrorDirectory = requireNonNull(mirrorDirectory, "mirrorDirectory is null");
        this.config = requireNonNull(config, "config is null");
        this.flattenerConfigs = requireNonNull(flattenerConfigs, "flattenerConfigs is null");
        this.clock = requireNonNull(clock, "clock is null");
        this.compactions = new BackgroundCompactions(config, clock, this::record);
    }

    /** Mirrors everything committed to the store so far, commits, and returns. */
    public SyncResult sync() {
        long events = 0;
        long commits = 0;
        for (Source source : refreshSources()) {
            while (true) {
                ChangeSource.Changes page = read(source);
                events += page.events().size();
                boolean full = source.batch != null && source.batch.events() >= config.batchMaxEvents();
                if (full || (page.caughtUp() && source.batch != null)) {
                    commit(source);
                    commits++;
                }
                if (page.caughtUp()) {
                    break;
                }
            }
            // A sync leaves the mirror compacted when it is due, so that batch jobs need no daemon for it.
            compactions.tend(source.mirror);
            compactions.await(source.mirror);
        }
        return new SyncResult(events, commits);
    }

    /** Mirrors continuously until {@link #stop} (or an interrupt); commits what it holds before returning. */
    public void run() throws InterruptedException {
        long lastRefresh = 0;
        while (!stopped && !Thread.currentThread().isInterrupted()) {
            if (clock.millis() - lastRefresh >= config.pollInterval().toMillis() * POLLS_BETWEEN_CONTAINER_LOOKUPS) {
                refreshSources();
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
                } catch (UncheckedIOException e) {
                    retryLater(source, e);
                }
                if (source.batch == null) {
                    compactions.tend(source.mirror);
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
            compactions.await(source.mirror);
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
        compactions.close();
        RuntimeException failure = null;
        for (Source source : sources.values()) {
            try (ContainerMirror mirror = source.mirror) {
                if (source.changes != null) {
                    source.changes.close();
                }
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

    private ChangeSource.Changes read(Source source) {
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
            String version = source.mirror.manifest().map(manifest -> "version " + manifest.version())
                    .orElse("its start");
            throw new IllegalStateException("Cannot mirror container " + source.mirror.container() + " any further: "
                    + e.getMessage() + " The mirror stops at " + version + " rather than skip those changes: "
                    + source.changes.gapRemedy(source.mirror.container()), e);
        }
    }

    /**
     * After an I/O error (a full disk, an unreachable Kafka broker) the batch is dropped uncommitted, so the mirror stays at its last
     * version, and the container is read again from that version's checkpoint after a pause that doubles with each
     * failure in a row, up to {@link #MAX_RETRY_DELAY}.
     */
    private void retryLater(Source source, UncheckedIOException failure) {
        if (source.batch != null) {
            try {
                source.batch.abort();
            } catch (UncheckedIOException e) {
                // Its files stay behind until the mirror next opens and removes what no manifest lists.
                failure.addSuppressed(e);
            }
            source.batch = null;
        }
        source.failuresInARow++;
        long delay = Math.min(MAX_RETRY_DELAY.toMillis(),
                config.pollInterval().toMillis() << Math.min(20, source.failuresInARow - 1));
        source.retryAt = clock.millis() + delay;
        reopen(source);
        record(new MirrorActivity(source.mirror.container(), 0, 0, 0, 0, 0, 0, 1));
        log.warn("Cannot mirror {} ({} failure{} in a row): the batch is not committed, the mirror "
                        + "stays at {}; retrying in {} ms", source.mirror.container(), source.failuresInARow,
                source.failuresInARow == 1 ? "" : "s", source.mirror.manifest()
                        .map(manifest -> "version " + manifest.version()).orElse("its start"), delay, failure);
    }

    private void commit(Source source) {
        ContainerMirror.Batch batch = source.batch;
        source.batch = null;
        long events = batch.events();
        // Every change the source returned is in the batch, so the source's position is where the batch ends.
        ContainerMirror.Commit commit = batch.commit(source.changes.checkpoint());
        record(new MirrorActivity(source.mirror.container(), events, 1, commit.filesWritten().size(),
                commit.filesWritten().stream().mapToLong(DataFile::bytes).sum(), 0, 0, 0));
        log.debug("Committed version {} of the mirror of {}: {} changes", commit.manifest().version(),
                source.mirror.container(), events);
    }

    private void record(MirrorActivity more) {
        activity.merge(more.container(), more, MirrorActivity::plus);
    }

    /** What this mirror has done per container since it was created; safe to call from any thread. */
    public List<MirrorActivity> activity() {
        return List.copyOf(activity.values());
    }

    /** Opens the container's change source again where the mirror's last committed version ends. */
    private void reopen(Source source) {
        if (source.changes != null) {
            source.changes.close();
            source.changes = null;
        }
        source.changes = changeSources.open(source.container, source.mirror.checkpoint());
    }

    /** Opens a source for each mirrored container not open yet. */
    private List<Source> refreshSources() {
        for (ContainerProperties container : store.listContainers()) {
            if (!container.isMirrored() || sources.containsKey(container.id())) {
                continue;
            }
            ContainerMirror mirror = ContainerMirror.open(mirrorDirectory, container.id(), container.analyticalTtl(),
                    flattenerConfigs.apply(container.id()), config, clock);
            try {
                mirror.backfill().ifPresent(backfill -> {
                    throw new IllegalStateException("Cannot mirror container " + container.id() + ": its backfill "
                            + "has not finished (" + backfill.rangeLsns().size() + " of " + backfill.feedRanges()
                            + " feed ranges done); run `docmirror backfill --container " + container.id()
                            + "` again to finish it");
                });
                Source source = new Source(container, mirror);
                reopen(source);
                sources.put(container.id(), source);
                log.info("Mirroring container {} from {}", container.id(), mirror.manifest()
                        .map(manifest -> "manifest version " + manifest.version())
                        .orElse("the beginning of its change feed"));
            } catch (RuntimeException e) {
                mirror.close();
                throw e;
            }
        }
        return new ArrayList<>(sources.values());
    }
}
