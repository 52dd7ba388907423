package io.docmirror.store.internal;

import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

import java.util.ArrayList;
import java.util.List;

/**
 * The RocksDB changes of one transaction, in order, kept until the group commit copies them into the one
 * {@link WriteBatch} of its group (RocksJava cannot append one batch to another). A large transaction (a bulk write)
 * is also copied into a batch of its own when it is queued, by its own thread: written alone, as a bulk load's
 * batches are, it then costs the thread that syncs no copying.
 */
public final class StagedChanges {
    /** From how many changes a transaction gets a batch of its own; a single write's few are copied with its group. */
    static final int PREPARED_FROM = 256;

    /** A put, or a delete when {@code value} is null. */
    private record Change(ColumnFamilyHandle family, byte[] key, byte[] value) {
    }

    private final List<Change> changes = new ArrayList<>();
    private WriteBatch prepared;

    public void put(ColumnFamilyHandle family, byte[] key, byte[] value) {
        changes.add(new Change(family, key, value));
    }

    public void delete(ColumnFamilyHandle family, byte[] key) {
        changes.add(new Change(family, key, null));
    }

    public boolean isEmpty() {
        return changes.isEmpty();
    }

    /** Copies a large transaction's changes into a batch of its own ({@link #prepared()}); a small one's stay. */
    void prepareIfLarge() throws RocksDBException {
        if (changes.size() < PREPARED_FROM) {
            return;
        }
        WriteBatch batch = new WriteBatch();
        try {
            applyTo(batch);
        } catch (RocksDBException | RuntimeException e) {
            batch.close();
            throw e;
        }
        prepared = batch;
    }

    /** The changes in a batch of their own, or null when the transaction is small. */
    WriteBatch prepared() {
        return prepared;
    }

    /** Frees the batch of its own, once written or failed. */
    void release() {
        if (prepared != null) {
            prepared.close();
            prepared = null;
        }
    }

    void applyTo(WriteBatch batch) throws RocksDBException {
        for (Change change : changes) {
            if (change.value() == null) {
                batch.delete(change.family(), change.key());
            }
            else {
                batch.put(change.family(), change.key(), change.value());
            }
        }
    }
}
