package io.docmirror.store;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The store's background thread: every {@code store.ttl.reaper-interval-ms} it runs the TTL reaper, then change-log
 * retention, each until it has nothing left to do.
 */
final class StoreMaintenance implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(StoreMaintenance.class);

    private final TtlReaper reaper;
    private final ChangeLogRetention retention;
    private final int batchSize;
    private final Duration interval;
    private final ScheduledExecutorService thread;

    private StoreMaintenance(TtlReaper reaper, ChangeLogRetention retention, StoreConfig config) {
        this.reaper = reaper;
        this.retention = retention;
        this.batchSize = config.reaperBatchSize();
        this.interval = config.reaperInterval();
        this.thread = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread maintenance = new Thread(runnable, "docmirror-store-maintenance");
            maintenance.setDaemon(true);
            return maintenance;
        });
    }

    static StoreMaintenance start(TtlReaper reaper, ChangeLogRetention retention, StoreConfig config) {
        StoreMaintenance maintenance = new StoreMaintenance(reaper, retention, config);
        long millis = maintenance.interval.toMillis();
        maintenance.thread.scheduleWithFixedDelay(maintenance::runOnce, millis, millis, TimeUnit.MILLISECONDS);
        return maintenance;
    }

    private void runOnce() {
        try {
            int removed;
            do {
                removed = reaper.reapExpired(batchSize);
                if (removed > 0) {
                    log.debug("TTL reaper removed {} expired items", removed);
                }
            }
            while (removed >= batchSize);
            long trimmed;
            do {
                trimmed = retention.trim(batchSize);
                if (trimmed > 0) {
                    log.debug("Change-log retention removed {} events", trimmed);
                }
            }
            while (trimmed > 0);
        } catch (RuntimeException e) {
            // Retried at the next interval; expired items stay invisible to reads meanwhile.
            log.error("Store maintenance (TTL reaper, change-log retention) failed, retrying in {} ms",
                    interval.toMillis(), e);
        }
    }

    @Override
    public void close() {
        thread.shutdownNow();
        try {
            if (!thread.awaitTermination(10, TimeUnit.SECONDS)) {
                log.warn("TTL reaper did not stop within 10 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
