package io.docmirror.sql;

import org.apache.iceberg.DeleteFile;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The deletion vectors the copy applied last, by the key the copy records them under ({@link CopiedTable}), so that
 * the next vector of the same data file needs only the positions it adds: the previous vector is read again from
 * its Puffin file (while the mirror keeps it) and left out. A few hundred bytes a data file with a vector, not a row;
 * an endpoint that starts knows none, and applies each vector whole once.
 */
final class AppliedVectors {
    private Map<String, DeleteFile> applied = new HashMap<>();
    private final Map<String, DeleteFile> next = new HashMap<>();

    /** The vector applied last under {@code key}, when this endpoint applied it. */
    Optional<DeleteFile> previous(String key) {
        return Optional.ofNullable(applied.get(key));
    }

    /** A vector the copy holds once the apply under way commits. */
    void hold(String key, DeleteFile vector) {
        next.put(key, vector);
    }

    /** The apply committed: what it held is what the next one starts from. */
    void committed() {
        applied = new HashMap<>(next);
        next.clear();
    }

    /** The apply was rolled back: the copy holds what it held before. */
    void rolledBack() {
        next.clear();
    }
}
