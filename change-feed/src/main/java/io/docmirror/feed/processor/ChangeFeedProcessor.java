package io.docmirror.feed.processor;

import io.docmirror.feed.ChangeFeedException;
import io.docmirror.feed.ChangeFeedPage;
import io.docmirror.feed.ChangeFeedReader;
import io.docmirror.feed.FeedErrorCode;
import io.docmirror.feed.FeedRange;
import io.docmirror.feed.StartFrom;
import io.docmirror.store.StoreClient;
import io.docmirror.store.StoreErrorCode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static java.util.Objects.requireNonNull;

/**
 * Hands every change of a container to a {@link ChangeFeedHandler}, spread over any number of workers (threads or
 * processes, in-process or over HTTP) that share the work through leases: one lease per feed range, kept in the
 * store's lease container. A worker renews its leases, takes free or expired ones, and takes one from a worker with
 * more than its share, so that the feed ranges balance; a worker that dies stops renewing, and after the lease
 * duration the others take its feed ranges from their last checkpoint. Delivery is at least once (see the
 * handler's contract).
 */
public final class ChangeFeedProcessor implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ChangeFeedProcessor.class);

    private final StoreClient store;
    private final String container;
    private final ChangeFeedHandler handler;
    private final ProcessorOptions options;
    private final Clock clock;
    private final LeaseStore leases;
    private final Map<Integer, OwnedRange> owned = new ConcurrentHashMap<>();
    private final AtomicLong failures = new AtomicLong();
    private final AtomicLong eventsHandled = new AtomicLong();
    private ScheduledExecutorService leaseManager;
    private ExecutorService rangeWorkers;
    private volatile boolean running;

    /** A feed range this worker holds, with the lease as last stored (guarded by the object's monitor). */
    private static final class OwnedRange {
        final int logPartition;
        Lease lease;
        volatile boolean held = true;
        Future<?> work;

        OwnedRange(Lease lease) {
            this.logPartition = lease.logPartition();
            this.lease = lease;
        }
    }

    public ChangeFeedProcessor(StoreClient store, String container, ChangeFeedHandler handler,
            ProcessorOptions options, Clock clock) {
        this.store = requireNonNull(store, "store is null");
        this.container = requireNonNull(container, "container is null");
        this.handler = requireNonNull(handler, "handler is null");
        this.options = requireNonNull(options, "options is null");
        this.clock = requireNonNull(clock, "clock is null");
        this.leases = new LeaseStore(store, options.leaseContainer(), container, options.processorName());
    }

    /** Creates missing leases and starts taking feed ranges. */
    public synchronized void start() {
        if (running) {
            return;
        }
        leases.ensureLeases(ChangeFeedReader.feedRanges(store, container).size());
        running = true;
        AtomicInteger threads = new AtomicInteger();
        rangeWorkers = Executors.newCachedThreadPool(runnable -> {
            Thread thread = new Thread(runnable, "docmirror-feed-" + options.processorName() + "-"
                    + threads.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
        leaseManager = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "docmirror-leases-" + options.processorName());
            thread.setDaemon(true);
            return thread;
        });
        long tick = Math.min(options.renewInterval().toMillis(), options.acquireInterval().toMillis());
        leaseManager.scheduleWithFixedDelay(this::manageLeases, 0, tick, TimeUnit.MILLISECONDS);
        log.info("Change feed processor {} started worker {} on container {}", options.processorName(),
                options.workerId(), container);
    }

    /** Stops the feed ranges (their handlers are interrupted) and releases the leases for other workers. */
    public synchronized void stop() {
        if (!running) {
            return;
        }
        running = false;
        leaseManager.shutdownNow();
        rangeWorkers.shutdownNow();
        try {
            leaseManager.awaitTermination(10, TimeUnit.SECONDS);
            rangeWorkers.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (OwnedRange range : owned.values()) {
            synchronized (range) {
                leases.replace(range.lease.withOwner(null, 0));
            }
        }
        owned.clear();
        log.info("Change feed processor {} stopped worker {}", options.processorName(), options.workerId());
    }

    @Override
    public void close() {
        stop();
    }

    /**
     * Hands every change up to the log's current end to the handler, on the caller's thread, one feed range after
     * the other, checkpointing after each batch: the batch-job form of the processor ({@code derive sync}), which
     * shares its checkpoints with the workers of {@link #start()}. Each lease is held while its range is read and
     * released after.
     *
     * @return how many changes were handled
     * @throws ChangeFeedException with {@code CONFLICT} when a worker holds one of the leases
     * @throws Exception what the handler threw; the checkpoint stays before the failed batch
     */
    public long catchUp() throws Exception {
        synchronized (this) {
            if (running) {
                throw new IllegalStateException("Change feed processor " + options.processorName() + " is running");
            }
        }
        leases.ensureLeases(ChangeFeedReader.feedRanges(store, container).size());
        long handled = 0;
        for (Lease free : leases.list()) {
            long now = clock.millis();
            if (!free.isFree(now) && !options.workerId().equals(free.owner())) {
                throw heldByWorker(free);
            }
            Lease lease = leases.replace(free.withOwner(options.workerId(), now + options.leaseDuration().toMillis()))
                    .orElseThrow(() -> heldByWorker(free));
            FeedRange feedRange = new FeedRange(container, lease.logPartition());
            try {
                ChangeFeedReader reader = ChangeFeedReader.open(store, feedRange, options.mode(),
                        lease.continuation() == null ? options.startFrom() : StartFrom.continuation(lease.continuation()));
                while (true) {
                    ChangeFeedPage page = reader.readNext(options.maxEventsPerBatch());
                    if (!page.events().isEmpty()) {
                        handler.handle(new ChangeFeedContext(feedRange, options.workerId(), page.continuation()),
                                page.events());
                        handled += page.events().size();
                        eventsHandled.addAndGet(page.events().size());
                    }
                    if (!page.continuation().equals(lease.continuation())) {
                        Lease renewed = lease.withOwner(options.workerId(),
                                clock.millis() + options.leaseDuration().toMillis());
                        lease = leases.replace(renewed.withContinuation(page.continuation()))
                                .orElseThrow(() -> heldByWorker(free));
                    }
                    if (page.caughtUp()) {
                        break;
                    }
                }
            } finally {
                leases.replace(lease.withOwner(null, 0));
            }
        }
        return handled;
    }

    private ChangeFeedException heldByWorker(Lease lease) {
        return new ChangeFeedException(StoreErrorCode.CONFLICT, "Cannot catch up change feed processor "
                + options.processorName() + " on feed range " + container + "[" + lease.logPartition()
                + "]: worker " + lease.owner() + " holds its lease; stop the running workers first");
    }

    /** The feed ranges this worker holds now. */
    public List<FeedRange> ownedFeedRanges() {
        return owned.keySet().stream().sorted().map(partition -> new FeedRange(container, partition)).toList();
    }

    /** How many times a handler threw (each failed batch counts once per attempt). */
    public long failures() {
        return failures.get();
    }

    public long eventsHandled() {
        return eventsHandled.get();
    }

    private void manageLeases() {
        try {
            long now = clock.millis();
            for (OwnedRange range : owned.values()) {
                synchronized (range) {
                    Optional<Lease> renewed = leases.replace(range.lease.withOwner(options.workerId(),
                            now + options.leaseDuration().toMillis()));
                    if (renewed.isPresent()) {
                        range.lease = renewed.get();
                    } else {
                        lose(range);
                    }
                }
            }
            balance(now);
        } catch (RuntimeException e) {
            log.warn("Worker {} of change feed processor {} could not manage its leases; retrying", options.workerId(),
                    options.processorName(), e);
        }
    }

    /** Takes free leases up to this worker's share, then at most one from the worker with the most. */
    private void balance(long now) {
        List<Lease> all = leases.list();
        Map<String, List<Lease>> byOwner = new HashMap<>();
        Set<String> workers = new HashSet<>();
        workers.add(options.workerId());
        for (Lease lease : all) {
            if (!lease.isFree(now)) {
                workers.add(lease.owner());
                byOwner.computeIfAbsent(lease.owner(), owner -> new ArrayList<>()).add(lease);
            }
        }
        int share = (all.size() + workers.size() - 1) / workers.size();
        for (Lease lease : all) {
            if (owned.size() >= share) {
                return;
            }
            if (lease.isFree(now) && !owned.containsKey(lease.logPartition())) {
                acquire(lease, now);
            }
        }
        if (owned.size() < share) {
            byOwner.entrySet().stream()
                    .filter(entry -> !entry.getKey().equals(options.workerId()) && entry.getValue().size() > share)
                    .max(Comparator.comparingInt(entry -> entry.getValue().size()))
                    .ifPresent(busiest -> acquire(busiest.getValue().get(0), now));
        }
    }

    private void acquire(Lease lease, long now) {
        Optional<Lease> won = leases.replace(lease.withOwner(options.workerId(), now + options.leaseDuration().toMillis()));
        if (won.isEmpty() || !running) {
            return;
        }
        OwnedRange range = new OwnedRange(won.get());
        owned.put(range.logPartition, range);
        log.info("Worker {} took feed range {}[{}]{}", options.workerId(), container, range.logPartition,
                lease.owner() == null || lease.owner().equals(options.workerId()) ? "" : " from " + lease.owner());
        range.work = rangeWorkers.submit(() -> process(range));
    }

    /** Must hold the range's monitor. */
    private void lose(OwnedRange range) {
        if (range.held) {
            range.held = false;
            owned.remove(range.logPartition, range);
            log.info("Worker {} lost feed range {}[{}] to another worker", options.workerId(), container,
                    range.logPartition);
            if (range.work != null) {
                range.work.cancel(true);
            }
        }
    }

    private void process(OwnedRange range) {
        FeedRange feedRange = new FeedRange(container, range.logPartition);
        ChangeFeedReader reader = null;
        while (running && range.held && !Thread.currentThread().isInterrupted()) {
            try {
                if (reader == null) {
                    String checkpoint;
                    synchronized (range) {
                        checkpoint = range.lease.continuation();
                    }
                    reader = ChangeFeedReader.open(store, feedRange, options.mode(),
                            checkpoint == null ? options.startFrom() : StartFrom.continuation(checkpoint));
                }
                String before = reader.continuation();
                ChangeFeedPage page = reader.readNext(options.maxEventsPerBatch());
                if (!page.events().isEmpty()) {
                    handler.handle(new ChangeFeedContext(feedRange, options.workerId(), page.continuation()),
                            page.events());
                }
                if (!page.continuation().equals(before) && !checkpoint(range, page.continuation())) {
                    return;
                }
                eventsHandled.addAndGet(page.events().size());
                if (page.caughtUp()) {
                    Thread.sleep(options.pollInterval().toMillis());
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (Exception e) {
                if (!running || !range.held) {
                    return;
                }
                failures.incrementAndGet();
                // Retried whatever its code: the checkpoint cannot pass the batch without skipping its changes.
                log.warn("Handler of change feed processor {} failed on feed range {} ({}); the checkpoint stays, "
                        + "retrying the batch in {} ms", options.processorName(), feedRange, FeedErrorCode.of(e),
                        options.retryBackoff().toMillis(), e);
                reader = null;
                try {
                    Thread.sleep(options.retryBackoff().toMillis());
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    /** Stores the checkpoint; false when the lease was lost meanwhile (the next owner redelivers the batch). */
    private boolean checkpoint(OwnedRange range, String continuation) {
        synchronized (range) {
            if (!range.held) {
                return false;
            }
            Optional<Lease> stored = leases.replace(range.lease.withContinuation(continuation));
            if (stored.isEmpty()) {
                lose(range);
                return false;
            }
            range.lease = stored.get();
            return true;
        }
    }
}
