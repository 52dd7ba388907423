package io.docmirror.mirror;

import static java.util.Objects.requireNonNull;

/**
 * Mirroring a container failed. The code says why and whether trying again may succeed
 * ({@link MirrorErrorCode#retriable}); the message names the container, the file or table and what to do.
 */
public final class MirrorException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final MirrorErrorCode code;

    public MirrorException(MirrorErrorCode code, String message) {
        super(message);
        this.code = requireNonNull(code, "code is null");
    }

    public MirrorException(MirrorErrorCode code, String message, Throwable cause) {
        super(message, cause);
        this.code = requireNonNull(code, "code is null");
    }

    public MirrorErrorCode code() {
        return code;
    }

    public boolean isRetriable() {
        return code.retriable();
    }
}
