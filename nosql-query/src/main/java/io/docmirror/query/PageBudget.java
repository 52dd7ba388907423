package io.docmirror.query;

import java.time.Duration;
import java.util.Objects;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

/**
 * How much work one page of a query may do: the rows its FROM clause makes (each document times the rows its JOINs
 * make of it, matching or not) and the time it takes, as Cosmos DB ends a page after about five seconds. A query that
 * streams ends its page early with a continuation where the budget ran out; one that must see every row before it
 * answers (ORDER BY, GROUP BY, aggregates, DISTINCT) is refused. Work also stops once nobody waits for the page (the
 * client's connection closed).
 */
public final class PageBudget {
    /** How many rows go by between two looks at the clock and at the client. */
    private static final int ROWS_BETWEEN_CHECKS = 1024;

    private final long maxRows;
    private final Duration maxTime;
    private final LongSupplier nanoTime;
    private final BooleanSupplier abandoned;
    private long startNanos;
    private long rows;
    private boolean spent;

    /**
     * @param nanoTime a monotonic clock in nanoseconds ({@code System::nanoTime})
     * @param abandoned whether nobody waits for the page any more
     */
    public PageBudget(long maxRows, Duration maxTime, LongSupplier nanoTime, BooleanSupplier abandoned) {
        if (maxRows < 1) {
            throw new IllegalArgumentException("maxRows must be at least 1: " + maxRows);
        }
        this.maxRows = maxRows;
        this.maxTime = Objects.requireNonNull(maxTime, "maxTime is null");
        this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime is null");
        this.abandoned = Objects.requireNonNull(abandoned, "abandoned is null");
    }

    /** No limit: for a caller that runs a query to its end (tests, the SDK-less evaluation of a whole query). */
    public static PageBudget unlimited() {
        return new PageBudget(Long.MAX_VALUE, Duration.ofNanos(Long.MAX_VALUE), System::nanoTime, () -> false);
    }

    /** Starts the page's clock. */
    void start() {
        startNanos = nanoTime.getAsLong();
        rows = 0;
        spent = false;
    }

    /**
     * Counts one more row made; false once the budget is spent (and from then on).
     *
     * @throws QueryException (CANCELLED) when nobody waits for the page any more
     */
    boolean take() {
        if (spent) {
            return false;
        }
        rows++;
        if (rows % ROWS_BETWEEN_CHECKS == 0) {
            if (abandoned.getAsBoolean()) {
                throw new QueryException(QueryErrorCode.CANCELLED, "The query was stopped: its client left");
            }
            if (nanoTime.getAsLong() - startNanos > maxTime.toNanos()) {
                spent = true;
            }
        }
        if (rows > maxRows) {
            spent = true;
        }
        return !spent;
    }

    /** The error of a query that must see every row, whose page ran out of budget. */
    QueryException exceeded() {
        return new QueryException(QueryErrorCode.LIMIT_EXCEEDED, "Cannot run the query: one page of it may make at "
                + "most " + maxRows + " rows (documents times the rows their JOINs make) within " + maxTime.toMillis()
                + " ms, and it made " + rows + " before it was stopped. A query with ORDER BY, GROUP BY, DISTINCT or "
                + "an aggregate sees every row before its first page: narrow it with a partition key or a filter, or "
                + "make the JOINs smaller");
    }
}
