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
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * The store's RocksDB database and its column families. All of an operation's changes (items, change-log entries,
 * expiry index, log ends) go into one {@link WriteBatch}, which RocksDB applies atomically; with sync writes it is
 * on disk before {@link #write} returns.
 *
 * <p>Safe to close while other threads use it (an HTTP request, the mirror's reader): RocksDB's handles crash the
 * JVM when used after they are freed, so each call runs under a shared lock and {@link #close} takes it exclusively,
 * waiting for calls in flight; later calls fail with {@link StoreErrorCode#UNAVAILABLE}, and iterators and snapshots
 * still open are freed with the database.
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
    /** Shared by every call of the database, exclusive to {@link #close}. */
    private final ReentrantReadWriteLock lifecycle = new ReentrantReadWriteLock();
    /** The iterators and snapshots not closed yet, freed before the database when it closes. */
    private final Set<NativeRead> openReads = ConcurrentHashMap.newKeySet();
    private boolean closed;

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
        return whileOpen("read from", () -> db.get(family, key));
    }

    public List<byte[]> multiGet(ColumnFamilyHandle family, List<byte[]> keys) {
        if (keys.isEmpty()) {
            return List.of(); // RocksDB asserts that it is asked for at least one key
        }
        List<ColumnFamilyHandle> families = new ArrayList<>(keys.size());
        for (int index = 0; index < keys.size(); index++) {
            families.add(family);
        }
        return whileOpen("read from", () -> db.multiGetAsList(families, keys));
    }

    /** An iterator over keys in [{@code from}, {@code until}); the caller closes it. */
    public BoundedIterator iterate(ColumnFamilyHandle family, byte[] from, byte[] until) {
        return whileOpen("read from", () -> new BoundedIterator(family, new ReadOptions(), from, until));
    }

    /**
     * A consistent view of the whole store as of now: reads through it never see a later write. Close it to let
     * RocksDB drop what only the snapshot still needs.
     */
    public Snapshot snapshot() {
        return whileOpen("read from", () -> new Snapshot(db.getSnapshot()));
    }

    /** How many snapshots are open: each keeps RocksDB from dropping the key versions it may read. */
    public long openSnapshots() {
        return whileOpen("read from", () -> db.getLongProperty("rocksdb.num-snapshots"));
    }

    public void write(WriteBatch batch) {
        whileOpen("write to", () -> {
            db.write(writeOptions, batch);
            return null;
        });
    }

    public void deleteRange(ColumnFamilyHandle family, byte[] from, byte[] until) {
        whileOpen("delete from", () -> {
            db.deleteRange(family, writeOptions, from, until);
            return null;
        });
    }

    /**
     * The bytes the keys in [{@code from}, {@code until}) take on disk, after compacting that range so that deleted
     * keys no longer count. RocksDB's own estimate: exact enough to compare sizes, not to the byte.
     */
    public long compactedSize(ColumnFamilyHandle family, byte[] from, byte[] until) {
        return whileOpen("compact", () -> {
            try (FlushOptions flush = new FlushOptions().setWaitForFlush(true)) {
                db.flush(flush, family);
                db.compactRange(family, from, until);
                return approximateSizeOf(family, from, until);
            }
        });
    }

    /** RocksDB's estimate of the bytes the keys in [{@code from}, {@code until}) take, memtables included. */
    public long approximateSize(ColumnFamilyHandle family, byte[] from, byte[] until) {
        return whileOpen("read from", () -> approximateSizeOf(family, from, until));
    }

    private long approximateSizeOf(ColumnFamilyHandle family, byte[] from, byte[] until) {
        // The slices hold native copies of the keys: freed at once, since a split asks for many estimates.
        try (Slice start = new Slice(from); Slice end = new Slice(until)) {
            return db.getApproximateSizes(family, List.of(new Range(start, end)),
                    SizeApproximationFlag.INCLUDE_FILES, SizeApproximationFlag.INCLUDE_MEMTABLES)[0];
        }
    }

    /** A call of the database, which throws RocksDB's checked exception. */
    @FunctionalInterface
    private interface RocksCall<T> {
        T run() throws RocksDBException;
    }

    /**
     * Runs {@code call} unless the store is closed, and keeps {@link #close} from freeing the database meanwhile;
     * {@code action} names it in an error ("read from" the store).
     */
    private <T> T whileOpen(String action, RocksCall<T> call) {
        lifecycle.readLock().lock();
        try {
            if (closed) {
                throw new StoreException(StoreErrorCode.UNAVAILABLE, "Cannot " + action + " the store: it is closed");
            }
            return call.run();
        } catch (RocksDBException e) {
            throw new StoreException(StoreErrorCode.UNAVAILABLE, "Cannot " + action + " the store: " + e.getMessage(),
                    e);
        } finally {
            lifecycle.readLock().unlock();
        }
    }

    /** Waits for the calls in flight, then frees the iterators and snapshots still open and the database. */
    @Override
    public void close() {
        lifecycle.writeLock().lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            openReads.forEach(NativeRead::close);
            for (ColumnFamilyHandle handle : handles) {
                handle.close();
            }
            db.close();
            writeOptions.close();
            dbOptions.close();
            columnOptions.close();
        } finally {
            lifecycle.writeLock().unlock();
        }
    }

    /** An iterator or a snapshot: native objects that must be freed before the database. */
    private interface NativeRead extends AutoCloseable {
        @Override
        void close();
    }

    /** Reads of the store as it was when {@link #snapshot()} was called. */
    public final class Snapshot implements NativeRead {
        private final org.rocksdb.Snapshot snapshot;
        private final ReadOptions readOptions;

        private Snapshot(org.rocksdb.Snapshot snapshot) {
            this.snapshot = snapshot;
            this.readOptions = new ReadOptions().setSnapshot(snapshot);
            openReads.add(this);
        }

        public byte[] get(ColumnFamilyHandle family, byte[] key) {
            return whileOpen("read from", () -> db.get(family, readOptions, key));
        }

        /** An iterator over keys in [{@code from}, {@code until}) as of the snapshot; the caller closes it. */
        public BoundedIterator iterate(ColumnFamilyHandle family, byte[] from, byte[] until) {
            return whileOpen("read from", () -> new BoundedIterator(family,
                    new ReadOptions().setSnapshot(snapshot), from, until));
        }

        @Override
        public void close() {
            if (openReads.remove(this)) {
                whileOpenOrClosing(() -> {
                    readOptions.close();
                    db.releaseSnapshot(snapshot);
                });
            }
        }
    }

    /**
     * Frees a read's native objects: under the shared lock, unless the store is closing on this thread (which holds
     * the exclusive lock, and frees every read still open).
     */
    private void whileOpenOrClosing(Runnable free) {
        if (lifecycle.isWriteLockedByCurrentThread()) {
            free.run();
            return;
        }
        lifecycle.readLock().lock();
        try {
            if (!closed) {
                free.run();
            }
        } finally {
            lifecycle.readLock().unlock();
        }
    }

    /** A RocksDB iterator that stops before an exclusive upper key. */
    public final class BoundedIterator implements NativeRead {
        private final RocksIterator iterator;
        private final ReadOptions options;
        private final byte[] until;
        /** The current entry's key, read by {@link #valid} (one call into RocksDB, under one lock, for both). */
        private byte[] key;

        private BoundedIterator(ColumnFamilyHandle family, ReadOptions options, byte[] from, byte[] until) {
            this.options = options;
            this.iterator = db.newIterator(family, options);
            this.until = until;
            openReads.add(this);
            iterator.seek(from);
        }

        public boolean valid() {
            return whileOpen("read from", () -> {
                key = iterator.isValid() ? iterator.key() : null;
                return key != null && java.util.Arrays.compareUnsigned(key, until) < 0;
            });
        }

        /** The key {@link #valid} found valid. */
        public byte[] key() {
            return key;
        }

        public byte[] value() {
            return whileOpen("read from", iterator::value);
        }

        public void next() {
            whileOpen("read from", () -> {
                iterator.next();
                return null;
            });
        }

        @Override
        public void close() {
            if (openReads.remove(this)) {
                whileOpenOrClosing(() -> {
                    iterator.close();
                    options.close();
                });
            }
        }
    }
}
