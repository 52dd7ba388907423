package io.docmirror.store.internal;

import io.docmirror.store.StoreErrorCode;
import io.docmirror.store.StoreException;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.CompressionType;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.FlushOptions;
import org.rocksdb.Range;
import org.rocksdb.SizeApproximationFlag;
import org.rocksdb.Slice;
import org.rocksdb.DBOptions;
import org.rocksdb.ReadOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The store's RocksDB database and its column families. All of an operation's changes (items, change-log entries,
 * expiry index, log ends) go into one {@link WriteBatch}, which RocksDB applies atomically; with sync writes it is
 * on disk before {@link #write} returns.
 */
public final class RocksStorage implements AutoCloseable {
    static {
        RocksDB.loadLibrary();
    }

    private final RocksDB db;
    private final DBOptions dbOptions;
    private final ColumnFamilyOptions columnOptions;
    private final List<ColumnFamilyHandle> handles;
    private final WriteOptions writeOptions;
    private final ColumnFamilyHandle containers;
    private final ColumnFamilyHandle items;
    private final ColumnFamilyHandle changeLog;
    private final ColumnFamilyHandle expiry;
    private final ColumnFamilyHandle logEnds;

    private RocksStorage(RocksDB db, DBOptions dbOptions, ColumnFamilyOptions columnOptions,
            List<ColumnFamilyHandle> handles, boolean syncWrites) {
        this.db = db;
        this.dbOptions = dbOptions;
        this.columnOptions = columnOptions;
        this.handles = handles;
        this.writeOptions = new WriteOptions().setSync(syncWrites);
        this.containers = handles.get(1);
        this.items = handles.get(2);
        this.changeLog = handles.get(3);
        this.expiry = handles.get(4);
        this.logEnds = handles.get(5);
    }

    public static RocksStorage open(Path directory, boolean syncWrites) {
        DBOptions dbOptions = new DBOptions()
                .setCreateIfMissing(true)
                .setCreateMissingColumnFamilies(true)
                .setMaxBackgroundJobs(2);
        // Bloom filters make the existence check of every create cheap; LZ4 keeps JSON small on disk at little CPU.
        ColumnFamilyOptions columnOptions = new ColumnFamilyOptions()
                .optimizeLevelStyleCompaction()
                .setCompressionType(CompressionType.LZ4_COMPRESSION)
                .setTableFormatConfig(new BlockBasedTableConfig().setFilterPolicy(new BloomFilter(10)));
        List<ColumnFamilyDescriptor> descriptors = new ArrayList<>();
        descriptors.add(new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, columnOptions));
        for (String name : List.of("containers", "items", "change-log", "expiry", "log-ends")) {
            descriptors.add(new ColumnFamilyDescriptor(name.getBytes(StandardCharsets.UTF_8), columnOptions));
        }
        List<ColumnFamilyHandle> handles = new ArrayList<>();
        try {
            Files.createDirectories(directory);
            RocksDB db = RocksDB.open(dbOptions, directory.toString(), descriptors, handles);
            return new RocksStorage(db, dbOptions, columnOptions, handles, syncWrites);
        } catch (RocksDBException | java.io.IOException e) {
            dbOptions.close();
            columnOptions.close();
            throw new StoreException(StoreErrorCode.UNAVAILABLE, "Cannot open the store at " + directory + ": "
                    + e.getMessage() + (e.getMessage() != null && e.getMessage().contains("lock")
                    ? " (is another docmirror process using this data directory?)" : ""), e);
        }
    }

    public ColumnFamilyHandle containers() {
        return containers;
    }

    public ColumnFamilyHandle items() {
        return items;
    }

    public ColumnFamilyHandle changeLog() {
        return changeLog;
    }

    public ColumnFamilyHandle expiry() {
        return expiry;
    }

    public ColumnFamilyHandle logEnds() {
        return logEnds;
    }

    public byte[] get(ColumnFamilyHandle family, byte[] key) {
        try {
            return db.get(family, key);
        } catch (RocksDBException e) {
            throw new StoreException(StoreErrorCode.UNAVAILABLE, "Cannot read from the store: " + e.getMessage(), e);
        }
    }

    public List<byte[]> multiGet(ColumnFamilyHandle family, List<byte[]> keys) {
        if (keys.isEmpty()) {
            return List.of(); // RocksDB asserts that it is asked for at least one key
        }
        List<ColumnFamilyHandle> families = new ArrayList<>(keys.size());
        for (int index = 0; index < keys.size(); index++) {
            families.add(family);
        }
        try {
            return db.multiGetAsList(families, keys);
        } catch (RocksDBException e) {
            throw new StoreException(StoreErrorCode.UNAVAILABLE, "Cannot read from the store: " + e.getMessage(), e);
        }
    }

    /** An iterator over keys in [{@code from}, {@code until}); the caller closes it. */
    public BoundedIterator iterate(ColumnFamilyHandle family, byte[] from, byte[] until) {
        ReadOptions options = new ReadOptions();
        RocksIterator iterator = db.newIterator(family, options);
        iterator.seek(from);
        return new BoundedIterator(iterator, options, until);
    }

    /**
     * A consistent view of the whole store as of now: reads through it never see a later write. Close it to let
     * RocksDB drop what only the snapshot still needs.
     */
    public Snapshot snapshot() {
        return new Snapshot(db.getSnapshot());
    }

    public void write(WriteBatch batch) {
        try {
            db.write(writeOptions, batch);
        } catch (RocksDBException e) {
            throw new StoreException(StoreErrorCode.UNAVAILABLE, "Cannot write to the store: " + e.getMessage(), e);
        }
    }

    public void deleteRange(ColumnFamilyHandle family, byte[] from, byte[] until) {
        try {
            db.deleteRange(family, writeOptions, from, until);
        } catch (RocksDBException e) {
            throw new StoreException(StoreErrorCode.UNAVAILABLE, "Cannot delete from the store: " + e.getMessage(), e);
        }
    }

    /**
     * The bytes the keys in [{@code from}, {@code until}) take on disk, after compacting that range so that deleted
     * keys no longer count. RocksDB's own estimate: exact enough to compare sizes, not to the byte.
     */
    public long compactedSize(ColumnFamilyHandle family, byte[] from, byte[] until) {
        try (FlushOptions flush = new FlushOptions().setWaitForFlush(true)) {
            db.flush(flush, family);
            db.compactRange(family, from, until);
            return db.getApproximateSizes(family, List.of(new Range(new Slice(from), new Slice(until))),
                    SizeApproximationFlag.INCLUDE_FILES, SizeApproximationFlag.INCLUDE_MEMTABLES)[0];
        } catch (RocksDBException e) {
            throw new StoreException(StoreErrorCode.UNAVAILABLE, "Cannot compact the store: " + e.getMessage(), e);
        }
    }

    /** RocksDB's estimate of the bytes the keys in [{@code from}, {@code until}) take, memtables included. */
    public long approximateSize(ColumnFamilyHandle family, byte[] from, byte[] until) {
        return db.getApproximateSizes(family, List.of(new Range(new Slice(from), new Slice(until))),
                SizeApproximationFlag.INCLUDE_FILES, SizeApproximationFlag.INCLUDE_MEMTABLES)[0];
    }

    @Override
    public void close() {
        for (ColumnFamilyHandle handle : handles) {
            handle.close();
        }
        db.close();
        writeOptions.close();
        dbOptions.close();
        columnOptions.close();
    }

    /** Reads of the store as it was when {@link #snapshot()} was called. */
    public final class Snapshot implements AutoCloseable {
        private final org.rocksdb.Snapshot snapshot;
        private final ReadOptions readOptions;

        private Snapshot(org.rocksdb.Snapshot snapshot) {
            this.snapshot = snapshot;
            this.readOptions = new ReadOptions().setSnapshot(snapshot);
        }

        public byte[] get(ColumnFamilyHandle family, byte[] key) {
            try {
                return db.get(family, readOptions, key);
            } catch (RocksDBException e) {
                throw new StoreException(StoreErrorCode.UNAVAILABLE, "Cannot read from the store: " + e.getMessage(),
                        e);
            }
        }

        /** An iterator over keys in [{@code from}, {@code until}) as of the snapshot; the caller closes it. */
        public BoundedIterator iterate(ColumnFamilyHandle family, byte[] from, byte[] until) {
            ReadOptions options = new ReadOptions().setSnapshot(snapshot);
            RocksIterator iterator = db.newIterator(family, options);
            iterator.seek(from);
            return new BoundedIterator(iterator, options, until);
        }

        @Override
        public void close() {
            readOptions.close();
            db.releaseSnapshot(snapshot);
        }
    }

    /** A RocksDB iterator that stops before an exclusive upper key. */
    public static final class BoundedIterator implements AutoCloseable {
        private final RocksIterator iterator;
        private final ReadOptions options;
        private final byte[] until;

        BoundedIterator(RocksIterator iterator, ReadOptions options, byte[] until) {
            this.iterator = iterator;
            this.options = options;
            this.until = until;
        }

        public boolean valid() {
            return iterator.isValid() && java.util.Arrays.compareUnsigned(iterator.key(), until) < 0;
        }

        public byte[] key() {
            return iterator.key();
        }

        public byte[] value() {
            return iterator.value();
        }

        public void next() {
            iterator.next();
        }

        @Override
        public void close() {
            iterator.close();
            options.close();
        }
    }
}
