package io.docmirror.query;

import java.util.Objects;

/**
 * A query that cannot run, with the reason and, when the fault is in the query's text, the line and column (both
 * from 1) where it is.
 */
public final class QueryException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final QueryErrorCode code;
    private final int line;
    private final int column;

    /** A fault at a position in the query's text; the message gets "at line L, column C" appended. */
    public QueryException(QueryErrorCode code, String reason, int line, int column) {
        super(Objects.requireNonNull(reason, "reason is null") + " at line " + line + ", column " + column);
        this.code = Objects.requireNonNull(code, "code is null");
        this.line = line;
        this.column = column;
    }

    /** A fault with no position in the text (a continuation, a document's value). */
    public QueryException(QueryErrorCode code, String message) {
        super(Objects.requireNonNull(message, "message is null"));
        this.code = Objects.requireNonNull(code, "code is null");
        this.line = 0;
        this.column = 0;
    }

    public QueryErrorCode code() {
        return code;
    }

    /** A fault with no position in the text, caused by another exception. */
    public QueryException(QueryErrorCode code, String message, Throwable cause) {
        this(code, message);
        initCause(Objects.requireNonNull(cause, "cause is null"));
    }

    /** The line of the fault, from 1; 0 when it has no position in the text. */
    public int line() {
        return line;
    }

    /** The column of the fault, from 1; 0 when it has no position in the text. */
    public int column() {
        return column;
    }
}
