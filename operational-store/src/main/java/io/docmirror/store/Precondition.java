package io.docmirror.store;

import java.util.Optional;

/**
 * An optimistic-concurrency condition on a write: {@link #ifMatch(String)} makes the write fail with 412 unless the
 * item's current {@code _etag} is the given one.
 */
public record Precondition(Optional<String> ifMatchEtag) {
    public static final Precondition NONE = new Precondition(Optional.empty());

    public static Precondition ifMatch(String etag) {
        return new Precondition(Optional.of(etag));
    }

    public static Precondition ofNullable(String etag) {
        return etag == null ? NONE : ifMatch(etag);
    }
}
