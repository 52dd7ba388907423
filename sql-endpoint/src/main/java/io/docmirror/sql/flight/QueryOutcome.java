package io.docmirror.sql.flight;

import java.util.Locale;

/** How a Flight SQL query ended, as counted by a {@link QueryObserver}. */
public enum QueryOutcome {
    /** Every row was sent. */
    OK,
    /**
     * The endpoint refused the query (a statement the guard does not allow, a SQL error, the column limit), or its
     * stream (too many results being read at once).
     */
    REFUSED,
    /** It ran past {@code sql.query-timeout-ms}, or the client took no rows for too long. */
    TIMED_OUT,
    /** The client cancelled the stream. */
    CANCELLED,
    /** Its ticket had expired or was dropped for the client's newer ones. */
    EXPIRED,
    /** Anything else: a failure of the endpoint's own. */
    FAILED;

    /** The metric label: {@code ok}, {@code timed_out}, ... */
    public String label() {
        return name().toLowerCase(Locale.ROOT);
    }
}
