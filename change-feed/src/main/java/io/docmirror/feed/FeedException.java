package io.docmirror.feed;

import static java.util.Objects.requireNonNull;

/**
 * Following a change feed failed: publishing it to Kafka, or writing the documents derived from it. The code says
 * why and whether trying again may succeed ({@link FeedErrorCode#retriable}); the message names the container, the
 * document and what to do. (A feed that cannot be read as asked is a {@link ChangeFeedException}, whose code is the
 * HTTP API's answer.)
 */
public final class FeedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final FeedErrorCode code;

    public FeedException(FeedErrorCode code, String message) {
        super(message);
        this.code = requireNonNull(code, "code is null");
    }

    public FeedException(FeedErrorCode code, String message, Throwable cause) {
        super(message, cause);
        this.code = requireNonNull(code, "code is null");
    }

    public FeedErrorCode code() {
        return code;
    }

    public boolean isRetriable() {
        return code.retriable();
    }
}
