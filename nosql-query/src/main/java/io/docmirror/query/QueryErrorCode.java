package io.docmirror.query;

/**
 * Why a query was refused. Every code is the client's to fix, so an HTTP front answers each with 400 Bad Request, as
 * Cosmos DB does for a query it cannot run.
 */
public enum QueryErrorCode {
    /** The text is not a query of the Cosmos DB for NoSQL language. */
    SYNTAX_ERROR,
    /** A query of the language, but one using a construct docmirror does not run (a subquery, a function, ...). */
    NOT_SUPPORTED,
    /** A query Cosmos DB refuses too: SELECT * over a join, an aggregate beside an ungrouped property, ... */
    INVALID_QUERY,
    /**
     * A parameter the query names was not given, or has a value of the wrong kind (TOP @n with a string), or the
     * request body's query and parameters are malformed.
     */
    INVALID_PARAMETER,
    /** A continuation that no page of this query gave out. */
    INVALID_CONTINUATION,
    /** Arithmetic or ordering on a number no BigDecimal holds (more than a thousand digits, or a huge exponent). */
    NUMBER_OUT_OF_RANGE,
    /**
     * A query that would hold more than a query may while it runs: more groups than {@link NoSqlQuery#MAX_GROUPS},
     * more distinct results than {@link NoSqlQuery#MAX_DISTINCT_RESULTS}, an ORDER BY's OFFSET beyond
     * {@link NoSqlQuery#MAX_SORTED_OFFSET}. The message names the limit and how to narrow the query.
     */
    LIMIT_EXCEEDED,
    /** The query was stopped because nobody waits for its answer any more (the client's connection closed). */
    CANCELLED;

    /** The HTTP status a front answers with: always 400, the request is at fault. */
    public int httpStatus() {
        return 400;
    }
}
