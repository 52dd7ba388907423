package io.docmirror.feed;

/**
 * A change feed cannot be read as asked: an unknown container or feed range, a token for another container, or a
 * position the log no longer holds. The message names the feed range and, for a lost position, the oldest one left.
 */
public final class ChangeFeedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public ChangeFeedException(String message) {
        super(message);
    }

    public ChangeFeedException(String message, Throwable cause) {
        super(message, cause);
    }
}
