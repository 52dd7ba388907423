package io.docmirror.mirror;

import io.docmirror.mirror.manifest.DataFile;
import io.docmirror.mirror.manifest.Manifest;
import io.docmirror.mirror.manifest.ReaderLeases;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Consumer;

import static java.util.Objects.requireNonNull;

/**
 * Runs the compactions of a {@link FeedMirror}'s containers on one background thread, so that commits and readers
 * never wait for them. The slow part (writing base files from a committed version) runs in the background; the
 * commit of its result runs on the mirror's thread, between two batches, like any commit. At most one compaction
 * per container is in flight. A failed compaction is logged and counted, the mirror goes on with its delta files,
 * and the container is tried again after {@link #RETRY_AFTER_FAILURE}.
 */
final class BackgroundCompactions implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(BackgroundCompactions.class);
    private static final Duration RETRY_AFTER_FAILURE = Duration.ofMinutes(1);

    private final MirrorConfig config;
    private final Clock clock;
    private final Consumer<MirrorActivity> activity;
    private final ExecutorService executor = Executors.newSingleThreadExecutor(runnable -> {
        Thread thread = new Thread(runnable, "docmirror-compaction");
        thread.setDaemon(true);
        return thread;
    });
    private final Map<String, Future<Compactor.Compaction>> running = new HashMap<>();
    private final Map<String, Long> failedAt = new HashMap<>();

    /** @param activity receives each compaction's (or failure's) contribution to a container's activity */
    BackgroundCompactions(MirrorConfig config, Clock clock, Consumer<MirrorActivity> activity) {
        this.config = requireNonNull(config, "config is null");
        this.clock = requireNonNull(clock, "clock is null");
        this.activity = requireNonNull(activity, "activity is null");
    }

    /**
     * Commits the container's finished compaction, or starts one when it is due. Call it from the mirror's thread
     * when the container has no open batch.
     */
    void tend(ContainerMirror mirror) {
        Future<Compactor.Compaction> compaction = running.get(mirror.container());
        if (compaction != null) {
            if (compaction.isDone()) {
                running.remove(mirror.container());
                commit(mirror, compaction);
            }
            return;
        }
        Long failure = failedAt.get(mirror.container());
        if (failure != null && clock.millis() - failure < RETRY_AFTER_FAILURE.toMillis()) {
            return;
        }
        mirror.manifest().filter(this::isDue).ifPresent(snapshot -> {
            Compactor compactor = new Compactor(mirror.directory(), config.parquet());
            long now = clock.millis() / 1000;
            // The compaction reads the snapshot's files while the mirror commits on: hold them until it is done.
            ReaderLeases.Lease lease = new ReaderLeases(mirror.directory()).take(snapshot.version());
            running.put(mirror.container(), executor.submit(() -> {
                try (lease) {
                    return compactor.compact(snapshot, now);
                }
            }));
        });
    }

    /** Waits for the container's compaction in flight, if any, and commits it (when a sync or the daemon ends). */
    void await(ContainerMirror mirror) {
        Future<Compactor.Compaction> compaction = running.remove(mirror.container());
        if (compaction != null) {
            commit(mirror, compaction);
        }
    }

    private boolean isDue(Manifest manifest) {
        long deltaFiles = manifest.root().files().stream().filter(file -> file.kind() == DataFile.Kind.DELTA).count();
        return config.compactionDeltaFiles() > 0 && deltaFiles >= config.compactionDeltaFiles();
    }

    private void commit(ContainerMirror mirror, Future<Compactor.Compaction> finished) {
        Compactor.Compaction compaction;
        try {
            compaction = finished.get();
        } catch (ExecutionException | InterruptedException e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            fail(mirror, e instanceof ExecutionException ? e.getCause() : e);
            return;
        }
        try {
            Manifest committed = mirror.commitCompaction(compaction);
            failedAt.remove(mirror.container());
            activity.accept(new MirrorActivity(mirror.container(), 0, 0, 0, 0, 1, 0, 0));
            log.debug("Compacted version {} of the mirror of {} into version {}", compaction.snapshotVersion(),
                    mirror.container(), committed.version());
        } catch (RuntimeException e) {
            compaction.discard();
            fail(mirror, e);
        }
    }

    private void fail(ContainerMirror mirror, Throwable cause) {
        failedAt.put(mirror.container(), clock.millis());
        activity.accept(new MirrorActivity(mirror.container(), 0, 0, 0, 0, 0, 1, 0));
        log.error("Compaction of the mirror of {} failed; it goes on with its delta files and tries again in {}",
                mirror.container(), RETRY_AFTER_FAILURE, cause);
    }

    /** Stops the background thread; a compaction in flight finishes, and its files are removed at the next open. */
    @Override
    public void close() {
        executor.shutdownNow();
    }
}
