package io.docmirror.mirror.iceberg;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The document index of tables whose documents' rows are kept elsewhere: a scaled-out stream's writers keep them in
 * their engine's state ({@link ShardWriter}), and its committer commits without one. It holds nothing and follows no
 * commit; asked where rows are, it refuses. The mirror's own index is removed when such a committer opens the
 * tables, so a single mirror that takes the container over rebuilds it from the tables.
 */
final class UnkeptDocumentIndex implements DocumentIndex {
    private final String container;

    UnkeptDocumentIndex(String container) {
        this.container = container;
    }

    private IllegalStateException refused() {
        return new IllegalStateException("The rows of the documents of " + container + " are kept by the writers of "
                + "a scaled-out stream, not here");
    }

    @Override
    public boolean kept() {
        return false;
    }

    @Override
    public long[] of(String key) {
        throw refused();
    }

    @Override
    public List<long[]> of(List<String> keys) {
        throw refused();
    }

    @Override
    public long place(String table, String dataFile, long position) {
        throw refused();
    }

    @Override
    public DataFileRef file(long place) {
        throw refused();
    }

    @Override
    public long documents() {
        return 0;
    }

    @Override
    public void prepare(long batch, Map<String, long[]> changed, long documentsAdded, Map<String, Moved> moves,
            List<String> leavingFiles) {
        throw refused();
    }

    @Override
    public void apply(long batch, String marker) {
        throw refused();
    }

    @Override
    public void discard(long batch) {
        // Nothing was recorded.
    }

    @Override
    public boolean catchUp(String rootUuid, long batch, boolean recordable) {
        throw refused();
    }

    @Override
    public Optional<String> marker() {
        return Optional.empty();
    }

    @Override
    public void unmark() {
        // Never marked.
    }

    @Override
    public void forget(String dataFile) {
        // Knows no file.
    }

    @Override
    public void clear() {
        // Holds nothing.
    }

    @Override
    public void add(String key, long place, boolean rootRow) {
        throw refused();
    }

    @Override
    public long[] set(String key, long[] places) {
        throw refused();
    }

    @Override
    public void mark(String marker) {
        throw refused();
    }

    @Override
    public void close() {
        // Nothing open.
    }
}
