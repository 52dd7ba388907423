package io.docmirror.layout;

import com.google.common.util.concurrent.MoreExecutors;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Threads for Iceberg's own parallel work (planning a scan across manifests, filtering and merging manifests in a
 * commit, expiring snapshots), owned by docmirror instead of Iceberg's JVM-wide pool. That pool is shut down by a
 * shutdown hook of Iceberg's own, which runs at the same time as docmirror's: the work a graceful stop still does (the
 * mirror's last batch, the endpoint's last query) failed with a {@code RejectedExecutionException} on Ctrl-C. These
 * threads end when their owner closes, after that work; idle ones end on their own.
 */
public final class IcebergWorkers {
    /** Threads in each pool: one per core. */
    public static final int THREADS = Runtime.getRuntime().availableProcessors();

    private static final long IDLE_SECONDS = 30;

    private IcebergWorkers() {
    }

    /** A pool of one daemon thread per core, named after {@code owner}; the caller shuts it down. */
    public static ExecutorService start(String owner) {
        ThreadPoolExecutor pool = new ThreadPoolExecutor(THREADS, THREADS, IDLE_SECONDS, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(), daemonThreads("docmirror-iceberg-" + owner));
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }

    /**
     * An executor that runs each task on the thread that hands it over: for Iceberg's small work inside a batch (the
     * manifests of one table's commit, listing a table's files between batches). Iceberg waits for tasks it gave a
     * pool by polling every 10 ms ({@code Tasks.waitFor}, {@code ParallelIterable}), which cost each table of a
     * batch's commit about 45 ms, against 4 to 9 ms done on the committing thread (BENCHMARKS.md, issue 29). The
     * embedded catalog's readers (the SQL endpoint) plan this way too; the pool serves the mirror's bulk work
     * (opening the tables, expiring snapshots) and a REST catalog's readers.
     */
    public static ExecutorService callerRuns() {
        return MoreExecutors.newDirectExecutorService();
    }

    private static ThreadFactory daemonThreads(String prefix) {
        AtomicInteger count = new AtomicInteger();
        return task -> {
            Thread thread = new Thread(task, prefix + "-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }
}
