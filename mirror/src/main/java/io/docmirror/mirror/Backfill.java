package io.docmirror.mirror;

import io.docmirror.feed.ContinuationToken;
import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.layout.CatalogConnection;
import io.docmirror.layout.CatalogSettings;
import io.docmirror.layout.MirrorCatalog;
import io.docmirror.layout.MirrorProperties;
import io.docmirror.layout.MirrorTables;
import io.docmirror.mirror.iceberg.BackfillState;
import io.docmirror.mirror.iceberg.ContainerBatch;
import io.docmirror.mirror.iceberg.ContainerTables;
import io.docmirror.mirror.source.Checkpoint;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.PartitionSnapshot;
import io.docmirror.store.SnapshotSource;
import io.docmirror.store.changelog.ChangeEvent;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;

import static java.util.Objects.requireNonNull;

/**
 * Snapshots a container straight into its tables, for a container with more history than its change feed keeps, or
 * a mirror to start over (one that lost its feed position, say). Each feed range is read from one consistent snapshot
 * of the store ({@link PartitionSnapshot}). A first mirror commits each range on its own (an initial load, which
 * readers see as it goes), so a killed backfill goes on where it stopped; over a mirror, one commit replaces every
 * table with the snapshot. Either way the change feed then starts at each range's snapshot LSN, so the daemon
 * streams on with no gap and no duplicate.
 *
 * <p>Reading (the snapshot scan) runs ahead on {@code mirror.backfill.readers} threads, one feed range each; one
 * thread flattens, as one flattener's schema decides every column's identity, and the mirror's encoder threads, one a
 * core, encode the Parquet files.
 */
public final class Backfill {
    private static final Logger log = LoggerFactory.getLogger(Backfill.class);
    private static final int PAGE_SIZE = 1000;
    /** Pages a reader may hold ready before the writer takes them: bounds the memory of reading ahead. */
    private static final int PAGES_AHEAD = 4;

    private final SnapshotSource store;
    private final Path mirrorDirectory;
    private final MirrorConfig config;
    private final FlattenerConfig flattenerConfig;
    /** What the container's analytical TTL counts back from. */
    private final Clock clock;

    /** Told how the backfill goes, from the thread that runs it. */
    public interface Listener {
        Listener NONE = new Listener() {
        };

        /** The backfill starts with {@code done} of {@code feedRanges} ranges already done by an earlier run. */
        default void started(int feedRanges, int done, long itemsDone) {
        }

        default void itemsWritten(long items) {
        }

        default void rangeCommitted(int feedRange, long lsn) {
        }
    }

    /**
     * What a backfill did.
     *
     * @param items the documents in the snapshot, including those of ranges an earlier, killed run committed
     * @param rangesResumed ranges an earlier run had done, which this one did not read again
     * @param rangeLsns where the change feed goes on from, per feed range
     * @param position the commit that finished the backfill ({@code version 42}, {@code batch 42})
     */
    public record Result(String container, long items, int rangesResumed, Map<Integer, Long> rangeLsns,
            String position) {
        public Result {
            rangeLsns = Collections.unmodifiableMap(new TreeMap<>(rangeLsns));
        }
    }

    public Backfill(SnapshotSource store, Path mirrorDirectory, MirrorConfig config, FlattenerConfig flattenerConfig,
            Clock clock) {
        this.store = requireNonNull(store, "store is null");
        this.mirrorDirectory = requireNonNull(mirrorDirectory, "mirrorDirectory is null");
        this.config = requireNonNull(config, "config is null");
        this.flattenerConfig = requireNonNull(flattenerConfig, "flattenerConfig is null");
        this.clock = requireNonNull(clock, "clock is null");
    }

    /**
     * Backfills {@code container}, or finishes its backfill that an earlier run started.
     *
     * @throws IllegalArgumentException when the container is not mirrored (analytical TTL off)
     * @throws MirrorException with {@code MIRROR_LOCKED} when a daemon (or another backfill) is mirroring the container
     */
    public Result run(String container, Listener listener) throws InterruptedException {
        ContainerProperties properties = requireMirrored(store.readContainer(container));
        return holdsMirror(container) ? replaceMirror(properties, listener) : startMirror(properties, listener);
    }

    /**
     * The container's properties, when it is mirrored.
     *
     * @throws IllegalArgumentException when it is not (analytical TTL off): a backfill has nothing to do
     */
    public static ContainerProperties requireMirrored(ContainerProperties properties) {
        if (!properties.isMirrored()) {
            throw new IllegalArgumentException("Cannot backfill container " + properties.id() + ": it is not mirrored "
                    + "(its analytical TTL is off); set its analytical TTL to -1 or a number of seconds first");
        }
        return properties;
    }

    /**
     * Whether the container's tables, in the configured catalog, hold a mirror: their root table has a commit that
     * is not part of an unfinished backfill.
     */
    private boolean holdsMirror(String container) {
        CatalogSettings settings = config.catalog().settings(mirrorDirectory);
        if (settings.kind() == CatalogSettings.Kind.SQLITE && !Files.exists(mirrorDirectory.resolve(
                CatalogSettings.SQLITE_FILE))) {
            return false;
        }
        try (CatalogConnection connection = MirrorCatalog.open(settings)) {
            Catalog catalog = connection.catalog();
            Namespace namespace = MirrorTables.namespace(container);
            if (!((SupportsNamespaces) catalog).namespaceExists(namespace)) {
                return false;
            }
            String root = ((SupportsNamespaces) catalog).loadNamespaceMetadata(namespace)
                    .get(MirrorProperties.ROOT_TABLE);
            TableIdentifier rootTable = MirrorTables.table(container, root == null ? container : root);
            if (!catalog.tableExists(rootTable)) {
                return false;
            }
            Snapshot current = catalog.loadTable(rootTable).currentSnapshot();
            return current != null && !current.summary().containsKey(BackfillState.SUMMARY_KEY);
        }
    }

    /**
     * Into the container's tables directly, each feed range a commit (an initial load, which readers see grow); a
     * backfill that was stopped goes on with the ranges it had not committed.
     */
    private Result startMirror(ContainerProperties properties, Listener listener) throws InterruptedException {
        String container = properties.id();
        try (ContainerTables tables = ContainerTables.open(mirrorDirectory, properties, flattenerConfig, config,
                clock)) {
            // What a killed run left goes first, as the daemon's first upkeep would remove it.
            tables.removeOrphanFiles();
            int feedRanges = properties.logPartitions();
            BackfillState progress = tables.backfill().orElse(BackfillState.start(feedRanges));
            List<Integer> pending = new ArrayList<>();
            for (int range = 0; range < feedRanges; range++) {
                if (!progress.isDone(range)) {
                    pending.add(range);
                }
            }
            listener.started(feedRanges, feedRanges - pending.size(), progress.items());
            snapshotRanges(container, () -> {
                ContainerBatch batch = tables.beginBackfill();
                return new RangeBatch(batch::add, batch::abort,
                        (range, lsn) -> batch.commitBackfillRange(range, lsn, feedRanges));
            }, pending, listener);
            BackfillState done = tables.backfill().orElseThrow();
            tables.finishBackfill(Checkpoint.ofContinuation(new ContinuationToken(container, done.rangeLsns())
                    .encode()));
            log.info("Backfilled {}: {} documents in {} feed ranges, committed as {}", container, done.items(),
                    feedRanges, tables.position());
            return new Result(container, done.items(), feedRanges - pending.size(), done.rangeLsns(),
                    tables.position());
        }
    }

    /**
     * Over tables that hold a mirror: every feed range into one batch, which replaces all the tables, history
     * included, in one commit. Readers see the old mirror until then; a backfill stopped midway leaves it as it was,
     * and starts over when run again.
     */
    private Result replaceMirror(ContainerProperties properties, Listener listener) throws InterruptedException {
        String container = properties.id();
        try (ContainerTables tables = ContainerTables.openForReplacingBackfill(mirrorDirectory, properties,
                flattenerConfig, config, clock)) {
            tables.removeOrphanFiles();
            log.info("Backfilling {} over its mirror at {}: the snapshot replaces its tables when done", container,
                    tables.position());
            int feedRanges = properties.logPartitions();
            List<Integer> ranges = new ArrayList<>();
            for (int range = 0; range < feedRanges; range++) {
                ranges.add(range);
            }
            listener.started(feedRanges, 0, 0);
            ContainerBatch batch = tables.beginReplacingBackfill();
            Map<Integer, Long> rangeLsns = new TreeMap<>();
            snapshotRanges(container, () -> new RangeBatch(batch::add, batch::abort, rangeLsns::put), ranges,
                    listener);
            batch.commitReplacingBackfill(rangeLsns, Checkpoint.ofContinuation(
                    new ContinuationToken(container, rangeLsns).encode()));
            log.info("Backfilled {}: {} documents in {} feed ranges, committed as {}", container, batch.events(),
                    feedRanges, tables.position());
            return new Result(container, batch.events(), 0, rangeLsns, tables.position());
        }
    }

    /** One feed range's part of a batch: what the writer adds to it, and how it ends. */
    private record RangeBatch(Consumer<ChangeEvent> add, Runnable abort, RangeCommit commit) {
    }

    @FunctionalInterface
    private interface RangeCommit {
        void commit(int feedRange, long lsn);
    }

    private void snapshotRanges(String container, Supplier<RangeBatch> batches, List<Integer> ranges,
            Listener listener) throws InterruptedException {
        ExecutorService readers = Executors.newFixedThreadPool(config.backfillReaders(), runnable -> {
            Thread thread = new Thread(runnable, "docmirror-backfill-reader");
            thread.setDaemon(true);
            return thread;
        });
        try {
            // Submitted in order, so the readers work on the ranges the writer takes next.
            Map<Integer, RangeReader> reads = new LinkedHashMap<>();
            for (int range : ranges) {
                RangeReader reader = new RangeReader(container, range);
                reads.put(range, reader);
                readers.execute(reader);
            }
            for (RangeReader reader : reads.values()) {
                write(batches.get(), reader, listener);
            }
        } finally {
            // Interrupts readers still waiting to hand over pages, and waits until each has closed its snapshot:
            // the store must not close under one.
            readers.shutdownNow();
            if (!readers.awaitTermination(1, TimeUnit.MINUTES)) {
                throw new IllegalStateException("The backfill's readers of " + container + " did not stop "
                        + "within a minute");
            }
        }
    }

    private void write(RangeBatch batch, RangeReader reader, Listener listener) throws InterruptedException {
        RangeEnd end;
        try {
            end = fill(batch, reader, listener);
        } catch (RuntimeException | InterruptedException e) {
            batch.abort().run();
            throw e;
        }
        // A failed commit abandons the batch itself.
        batch.commit().commit(reader.range, end.lsn());
        listener.rangeCommitted(reader.range, end.lsn());
    }

    /** Adds the range's items to the batch as its reader hands them over; returns the range's end. */
    private static RangeEnd fill(RangeBatch batch, RangeReader reader, Listener listener)
            throws InterruptedException {
        while (true) {
            Object next = reader.pages.take();
            if (next instanceof RangeEnd end) {
                return end;
            }
            if (next instanceof RangeFailure failure) {
                throw new MirrorException(MirrorErrorCode.of(failure.cause()),
                        "Cannot read feed range " + reader.range + " of container "
                        + reader.container + " for its backfill: " + failure.cause().getMessage(), failure.cause());
            }
            @SuppressWarnings("unchecked")
            List<ChangeEvent> page = (List<ChangeEvent>) next;
            for (ChangeEvent item : page) {
                batch.add().accept(item);
            }
            listener.itemsWritten(page.size());
        }
    }

    /** The end of a feed range's snapshot, taken at {@code lsn}. */
    private record RangeEnd(long lsn) {
    }

    private record RangeFailure(Throwable cause) {
    }

    /** Reads one feed range's snapshot into pages of items, for the writer to take in order. */
    private final class RangeReader implements Runnable {
        final String container;
        final int range;
        final BlockingQueue<Object> pages = new ArrayBlockingQueue<>(PAGES_AHEAD);

        RangeReader(String container, int range) {
            this.container = container;
            this.range = range;
        }

        @Override
        public void run() {
            try (PartitionSnapshot snapshot = store.snapshot(container, range)) {
                for (List<ChangeEvent> page = snapshot.next(PAGE_SIZE); !page.isEmpty();
                        page = snapshot.next(PAGE_SIZE)) {
                    // The items stay JSON bytes: the flattener parses them itself, once.
                    pages.put(page);
                }
                pages.put(new RangeEnd(snapshot.lsn()));
            } catch (InterruptedException e) {
                // The writer has stopped and no longer takes pages.
                Thread.currentThread().interrupt();
            } catch (RuntimeException | Error e) {
                handOver(new RangeFailure(e));
            }
        }

        /** Gives the writer the failure, once it has taken the pages before it. */
        private void handOver(RangeFailure failure) {
            try {
                pages.put(failure);
            } catch (InterruptedException stopped) {
                // The writer stopped for a failure of its own, which it reports; this one is logged, not lost.
                log.warn("Cannot read feed range {} of container {} for its backfill", range, container,
                        failure.cause());
                Thread.currentThread().interrupt();
            }
        }
    }
}
