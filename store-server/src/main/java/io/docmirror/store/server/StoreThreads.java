package io.docmirror.store.server;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * The threads that do the store's work for HTTP requests, in two pools: point reads, writes and everything else on
 * {@code store.http.threads} threads, and NoSQL queries on as many threads of their own, with a short queue. A query
 * may run for a page's whole time budget; on threads of its own, any number of slow queries leaves point reads and
 * writes their threads, and once the queries' queue is full a new one is answered 429 (which the Cosmos DB SDKs
 * retry) instead of waiting without end.
 */
final class StoreThreads {
    private static final Logger log = LoggerFactory.getLogger(StoreThreads.class);
    /** Queries that may wait for a thread, beyond those running. */
    static final int QUERIES_WAITING = 64;

    private final ExecutorService requests;
    private final ThreadPoolExecutor queries;
    private final Predicate<ApiRequest> isQuery;

    /** @param isQuery which requests are queries, to run on the queries' pool */
    StoreThreads(int threads, Predicate<ApiRequest> isQuery) {
        this.isQuery = isQuery;
        this.requests = Executors.newFixedThreadPool(threads, daemonThreads("docmirror-store-http-"));
        this.queries = new ThreadPoolExecutor(threads, threads, 0, TimeUnit.MILLISECONDS,
                new ArrayBlockingQueue<>(QUERIES_WAITING), daemonThreads("docmirror-store-query-"));
    }

    /**
     * Runs the work of {@code request} on its pool.
     *
     * @return false when it is a query and the queries' queue is full (the work is not run)
     * @throws RejectedExecutionException when the threads are shut down
     */
    boolean execute(ApiRequest request, Runnable work) {
        if (!isQuery.test(request)) {
            requests.execute(work);
            return true;
        }
        try {
            queries.execute(work);
            return true;
        } catch (RejectedExecutionException e) {
            if (queries.isShutdown()) {
                throw e;
            }
            return false;
        }
    }

    /** Lets the work in progress finish within {@code grace}, then interrupts what is left. */
    void shutdown(Duration grace) {
        requests.shutdown();
        queries.shutdown();
        try {
            long deadline = System.nanoTime() + grace.toNanos();
            boolean finished = requests.awaitTermination(grace.toNanos(), TimeUnit.NANOSECONDS)
                    && queries.awaitTermination(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (!finished) {
                log.warn("The store's HTTP threads did not finish within {} s; interrupting them", grace.toSeconds());
                shutdownNow();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            log.warn("Interrupted while waiting for the store's HTTP threads; interrupting them", e);
            shutdownNow();
        }
    }

    void shutdownNow() {
        requests.shutdownNow();
        queries.shutdownNow();
    }

    private static ThreadFactory daemonThreads(String prefix) {
        AtomicInteger count = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, prefix + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }
}
