package io.docmirror.mirror.source;

/**
 * A container's change source cannot be read for now: the store's HTTP API or the Kafka broker does not answer. It
 * says nothing about the container or its mirror, so the caller keeps the mirror at its last committed version and
 * reopens the source at that version's checkpoint when it answers again.
 */
public final class SourceUnavailableException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public SourceUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
