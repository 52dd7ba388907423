package io.docmirror.flatten;

import static java.util.Objects.requireNonNull;

/**
 * A document that cannot be mirrored at all, kept with the reason so that nothing vanishes silently: the SQL
 * catalog's {@code docmirror_dead_letters}.
 *
 * @param id the document's id, or {@code null} when it has none
 * @param rawDocument the document as JSON text
 */
public record DeadLetter(String container, String id, long lsn, String reason, String rawDocument) {
    public DeadLetter {
        requireNonNull(container, "container is null");
        requireNonNull(reason, "reason is null");
        requireNonNull(rawDocument, "rawDocument is null");
    }
}
