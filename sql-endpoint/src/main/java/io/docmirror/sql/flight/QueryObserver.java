package io.docmirror.sql.flight;

/**
 * Told by the Flight SQL server about each query as it ends and about the tickets waiting to be fetched, for metrics.
 * Called on the server's call threads: implementations must be thread-safe and quick.
 */
public interface QueryObserver {
    /** Observes nothing. */
    QueryObserver NONE = new QueryObserver() {
        @Override
        public void answered(QueryOutcome outcome, long nanos, long bytesSent) {
        }

        @Override
        public void ticketsPending(int tickets) {
        }
    };

    /**
     * A query ended: refused when it was described (GetFlightInfo, a prepared statement), or ended when its ticket
     * was fetched.
     *
     * @param nanos from the call's start to its end (for a fetch: the query's run and the sending of every row)
     * @param bytesSent the Arrow buffers of the record batches sent (0 when none were)
     */
    void answered(QueryOutcome outcome, long nanos, long bytesSent);

    /** The tickets that may still be fetched, after a change (issued, expired, dropped). */
    void ticketsPending(int tickets);
}
