package io.docmirror.store.internal;

import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

import java.util.ArrayList;
import java.util.List;

/**
 * The RocksDB changes of one transaction, in order, kept until the group commit copies them into the one
 * {@link WriteBatch} of its group (RocksJava cannot append one batch to another).
 */
public final class StagedChanges {
    /** A put, or a delete when {@code value} is null. */
    private record Change(ColumnFamilyHandle family, byte[] key, byte[] value) {
    }

    private final List<Change> changes = new ArrayList<>();

    public void put(ColumnFamilyHandle family, byte[] key, byte[] value) {
        changes.add(new Change(family, key, value));
    }

    public void delete(ColumnFamilyHandle family, byte[] key) {
        changes.add(new Change(family, key, null));
    }

    public boolean isEmpty() {
        return changes.isEmpty();
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
