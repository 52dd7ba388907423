package io.docmirror.mirror.iceberg;

import io.docmirror.mirror.MirrorErrorCode;
import io.docmirror.mirror.MirrorException;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.ColumnFamilyDescriptor;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.ColumnFamilyOptions;
import org.rocksdb.DBOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The document index ({@link DocumentIndex}) in RocksDB, in the container's directory: the mirror's heap does not
 * grow with the container, and the index survives a restart. Its marker names the commit it reflects; an index whose
 * marker is neither the catalog's last commit nor the one before it (with that commit's changes recorded) is rebuilt
 * from the tables.
 *
 * <p>The data files are few (compaction keeps them so) and their ordinals are kept in heap too; the documents are
 * not. A document is one entry, its key to its places, found by a point look-up with a Bloom filter (most look-ups
 * are of new documents). There is no entry per row: when a compaction moves rows, the moved documents are read from
 * the key columns of the file the rows went to ({@link FileKeys}).
 *
 * <p>A batch's changes are recorded ({@link #prepare}) in a column family of their own, in chunks, and the marker is
 * set in the last write of {@link #apply}. In the documents' key space a batch's megabytes of changes would make every
 * look-up a Bloom filter lets through decompress them: measured at 10 ms a look-up, a tenth of the streaming rate.
 */
final class RocksDbDocumentIndex implements DocumentIndex {
    private static final long POSITION_MASK = (1L << POSITION_BITS) - 1;
    private static final int MAX_FILES = 1 << (Long.SIZE - POSITION_BITS - 1);
    private static final byte DOCUMENT = 'D';
    /** A row a rebuild took, until {@link #mark} gathers the document's rows ({@link #add}). */
    private static final byte ADDED_ROW = 'A';
    private static final byte FILE = 'F';
    private static final byte[] MARKER = "Mmarker".getBytes(StandardCharsets.UTF_8);
    private static final byte[] DOCUMENTS = "Mdocuments".getBytes(StandardCharsets.UTF_8);
    private static final byte[] NOTHING = new byte[0];
    private static final byte[] PENDING_FAMILY = "pending".getBytes(StandardCharsets.UTF_8);
    /** The chunk number of a batch's last pending entry, written last: the document count after the batch. */
    private static final int PENDING_END = -1;
    private static final int PENDING_CHUNK_BYTES = 256 << 10;
    private static final byte CHANGED = 'C';
    private static final byte MOVED = 'M';
    private static final byte LEAVING = 'L';
    private static final long WRITE_BUFFER_BYTES = 16L << 20;
    /** How many keys one multi-get looks up. */
    private static final int MULTI_GET_KEYS = 1000;
    /** How many entries are written at once: a rebuild's rows, an apply's documents. */
    private static final int ENTRIES_PER_WRITE = 20_000;

    static {
        RocksDB.loadLibrary();
    }

    private final Path directory;
    private final FileKeys fileKeys;
    private final BloomFilter filter;
    private final List<AutoCloseable> options;
    private final RocksDB db;
    private final ColumnFamilyHandle documentFamily;
    private final ColumnFamilyHandle pendingFamily;
    private final WriteOptions writes = new WriteOptions();
    /** Rows {@link #add} took and has not written yet. */
    private final WriteBatch added = new WriteBatch();
    private final List<DataFileRef> files = new ArrayList<>();
    private final Map<String, Integer> ordinals = new HashMap<>();
    /** Ordinals of files that left the tables, to give to new files: compaction replaces files all the time. */
    private final Deque<Integer> freeOrdinals = new ArrayDeque<>();
    private long documents;

    private RocksDbDocumentIndex(Path directory, FileKeys fileKeys, BloomFilter filter, List<AutoCloseable> options,
            RocksDB db, List<ColumnFamilyHandle> families) {
        this.directory = directory;
        this.fileKeys = fileKeys;
        this.filter = filter;
        this.options = options;
        this.db = db;
        this.documentFamily = families.get(0);
        this.pendingFamily = families.get(1);
    }

    /**
     * Opens the index in {@code directory}, creating it when there is none.
     *
     * @param fileKeys reads whose rows a data file holds, for the files a compaction writes
     */
    static RocksDbDocumentIndex open(Path directory, FileKeys fileKeys) {
        // Small memtables: a daemon holds one index per container it mirrors, each with its own native memory.
        // Bloom filters: most look-ups are of documents the index does not have yet (creates).
        BloomFilter filter = new BloomFilter(10, false);
        ColumnFamilyOptions documentOptions = new ColumnFamilyOptions().setWriteBufferSize(WRITE_BUFFER_BYTES)
                .setMaxWriteBufferNumber(2).setTableFormatConfig(new BlockBasedTableConfig().setFilterPolicy(filter));
        ColumnFamilyOptions pendingOptions = new ColumnFamilyOptions().setWriteBufferSize(WRITE_BUFFER_BYTES)
                .setMaxWriteBufferNumber(2);
        DBOptions dbOptions = new DBOptions().setCreateIfMissing(true).setCreateMissingColumnFamilies(true);
        List<AutoCloseable> options = List.of(documentOptions, pendingOptions, dbOptions);
        List<ColumnFamilyHandle> families = new ArrayList<>();
        try {
            Files.createDirectories(directory);
            RocksDB db = RocksDB.open(dbOptions, directory.toString(), List.of(
                    new ColumnFamilyDescriptor(RocksDB.DEFAULT_COLUMN_FAMILY, documentOptions),
                    new ColumnFamilyDescriptor(PENDING_FAMILY, pendingOptions)), families);
            RocksDbDocumentIndex index = new RocksDbDocumentIndex(directory, fileKeys, filter, options, db, families);
            index.loadFiles();
            return index;
        } catch (IOException | RocksDBException e) {
            options.forEach(RocksDbDocumentIndex::closeQuietly);
            filter.close();
            throw new MirrorException(MirrorErrorCode.IO_FAILURE,
                    "Cannot open the document index in " + directory + ": " + e.getMessage(),
                    e);
        }
    }

    private void loadFiles() throws RocksDBException {
        try (RocksIterator entries = db.newIterator(documentFamily)) {
            for (entries.seek(new byte[] {FILE}); entries.isValid() && entries.key()[0] == FILE; entries.next()) {
                int ordinal = ByteBuffer.wrap(entries.key(), 1, Integer.BYTES).getInt();
                String[] parts = new String(entries.value(), StandardCharsets.UTF_8).split("\u0000", 2);
                while (files.size() <= ordinal) {
                    files.add(null);
                }
                files.set(ordinal, new DataFileRef(parts[0], parts[1]));
                ordinals.put(parts[1], ordinal);
            }
        }
        for (int ordinal = files.size() - 1; ordinal >= 0; ordinal--) {
            if (files.get(ordinal) == null) {
                freeOrdinals.push(ordinal);
            }
        }
        byte[] count = db.get(documentFamily, DOCUMENTS);
        documents = count == null ? 0 : ByteBuffer.wrap(count).getLong();
    }

    @Override
    public Optional<String> marker() {
        byte[] marker = get(MARKER);
        return marker == null ? Optional.empty() : Optional.of(new String(marker, StandardCharsets.UTF_8));
    }

    @Override
    public void unmark() {
        try {
            db.delete(documentFamily, writes, MARKER);
        } catch (RocksDBException e) {
            throw failure("be written", e);
        }
    }

    @Override
    public void mark(String marker) {
        writeAdded();
        gatherAddedRows();
        try (WriteBatch batch = new WriteBatch()) {
            batch.put(documentFamily, DOCUMENTS, longBytes(documents));
            batch.put(documentFamily, MARKER, marker.getBytes(StandardCharsets.UTF_8));
            db.write(writes, batch);
        } catch (RocksDBException e) {
            throw failure("record the commit it reflects", e);
        }
    }

    @Override
    public long place(String table, String dataFile, long position) {
        if (position < 0 || position > POSITION_MASK) {
            throw new IllegalArgumentException("Row position " + position + " of " + dataFile + " is out of range");
        }
        Integer ordinal = ordinals.get(dataFile);
        if (ordinal == null) {
            if (!freeOrdinals.isEmpty()) {
                ordinal = freeOrdinals.pop();
                files.set(ordinal, new DataFileRef(table, dataFile));
            } else if (files.size() == MAX_FILES) {
                throw new MirrorException(MirrorErrorCode.LIMIT_REACHED,
                        "The mirror tracks " + MAX_FILES + " data files already; compaction "
                        + "must replace some before more are written");
            } else {
                ordinal = files.size();
                files.add(new DataFileRef(table, dataFile));
            }
            ordinals.put(dataFile, ordinal);
            try {
                db.put(documentFamily, writes, fileKey(ordinal),
                        (table + '\u0000' + dataFile).getBytes(StandardCharsets.UTF_8));
            } catch (RocksDBException e) {
                throw failure("note the data file " + dataFile, e);
            }
        }
        return ((long) ordinal << POSITION_BITS) | position;
    }

    @Override
    public DataFileRef file(long place) {
        return files.get(ordinalOf(place));
    }

    @Override
    public long[] of(String key) {
        return decodePlaces(get(documentKey(key.getBytes(StandardCharsets.UTF_8))));
    }

    /** Looks the keys up in key order, a thousand at a time: RocksDB then reads each block and filter once. */
    @Override
    public List<long[]> of(List<String> keys) {
        Integer[] order = new Integer[keys.size()];
        byte[][] lookedUp = new byte[keys.size()][];
        for (int index = 0; index < order.length; index++) {
            order[index] = index;
            lookedUp[index] = documentKey(keys.get(index).getBytes(StandardCharsets.UTF_8));
        }
        Arrays.sort(order, (left, right) -> Arrays.compareUnsigned(lookedUp[left], lookedUp[right]));
        long[][] found = new long[keys.size()][];
        for (int first = 0; first < order.length; first += MULTI_GET_KEYS) {
            int last = Math.min(order.length, first + MULTI_GET_KEYS);
            List<byte[]> chunk = new ArrayList<>(last - first);
            for (int index = first; index < last; index++) {
                chunk.add(lookedUp[order[index]]);
            }
            try {
                List<byte[]> values = db.multiGetAsList(Collections.nCopies(chunk.size(), documentFamily), chunk);
                for (int index = first; index < last; index++) {
                    found[order[index]] = decodePlaces(values.get(index - first));
                }
            } catch (RocksDBException e) {
                throw failure("be read", e);
            }
        }
        return Arrays.asList(found);
    }

    @Override
    public long[] set(String key, long[] places) {
        byte[] documentKey = documentKey(key.getBytes(StandardCharsets.UTF_8));
        long[] had = decodePlaces(get(documentKey));
        try {
            if (places.length == 0) {
                db.delete(documentFamily, writes, documentKey);
            } else {
                db.put(documentFamily, writes, documentKey, encodePlaces(places));
            }
        } catch (RocksDBException e) {
            throw failure("set the rows of document " + key.replace('\u0000', '/'), e);
        }
        documents += (places.length > 0 ? 1 : 0) - (had.length > 0 ? 1 : 0);
        return had;
    }

    /** Writes the row with the next ones, an entry a row ({@code A}); {@link #mark} gathers them by document. */
    @Override
    public void add(String key, long place, boolean rootRow) {
        try {
            added.put(documentFamily, addedRowKey(key.getBytes(StandardCharsets.UTF_8), place), NOTHING);
        } catch (RocksDBException e) {
            throw failure("note a row of document " + key.replace('\u0000', '/'), e);
        }
        if (rootRow) {
            documents++;
        }
        if (added.count() >= ENTRIES_PER_WRITE) {
            writeAdded();
        }
    }

    /** Writes the rows {@link #add} holds. */
    private void writeAdded() {
        if (added.count() == 0) {
            return;
        }
        try {
            db.write(writes, added);
            added.clear();
        } catch (RocksDBException e) {
            throw failure("be written", e);
        }
    }

    /**
     * Turns the rows {@link #add} wrote, one entry a row sorted by document, into one entry a document: a single pass
     * in key order.
     */
    private void gatherAddedRows() {
        byte[] prefix = {ADDED_ROW};
        try (RocksIterator entries = db.newIterator(documentFamily); WriteBatch batch = new WriteBatch()) {
            byte[] document = null;
            long[] places = new long[0];
            for (entries.seek(prefix); entries.isValid() && entries.key()[0] == ADDED_ROW; entries.next()) {
                byte[] key = entries.key();
                byte[] keyBytes = Arrays.copyOfRange(key, 1 + Integer.BYTES, key.length - Long.BYTES);
                long place = ByteBuffer.wrap(key, key.length - Long.BYTES, Long.BYTES).getLong();
                if (document != null && !Arrays.equals(document, keyBytes)) {
                    batch.put(documentFamily, documentKey(document), encodePlaces(places));
                    places = new long[0];
                    if (batch.count() >= ENTRIES_PER_WRITE) {
                        db.write(writes, batch);
                        batch.clear();
                    }
                }
                document = keyBytes;
                places = Arrays.copyOf(places, places.length + 1);
                places[places.length - 1] = place;
            }
            if (document != null) {
                batch.put(documentFamily, documentKey(document), encodePlaces(places));
            }
            batch.deleteRange(documentFamily, new byte[] {ADDED_ROW}, new byte[] {(byte) (ADDED_ROW + 1)});
            db.write(writes, batch);
        } catch (RocksDBException e) {
            throw failure("gather the rows it was rebuilt with", e);
        }
    }

    @Override
    public void prepare(long batch, Map<String, long[]> changed, long documentsAdded, Map<String, Moved> moves,
            List<String> leavingFiles) {
        writeAdded();
        try (PendingWriter out = new PendingWriter(batch)) {
            for (Map.Entry<String, long[]> document : changed.entrySet()) {
                out.data.writeByte(CHANGED);
                out.data.writeUTF(document.getKey());
                out.data.writeInt(document.getValue().length);
                for (long place : document.getValue()) {
                    out.data.writeLong(place);
                }
                out.endOfEntry();
            }
            for (Map.Entry<String, Moved> move : moves.entrySet()) {
                out.data.writeByte(MOVED);
                out.data.writeUTF(move.getKey());
                out.data.writeUTF(move.getValue().table());
                out.data.writeUTF(move.getValue().newFile());
                out.data.writeInt(move.getValue().newPositions().length);
                for (int position : move.getValue().newPositions()) {
                    out.data.writeInt(position);
                }
                out.endOfEntry();
            }
            for (String file : leavingFiles) {
                out.data.writeByte(LEAVING);
                out.data.writeUTF(file);
                out.endOfEntry();
            }
            out.end(documents + documentsAdded);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot encode the index changes of batch " + batch, e);
        } catch (RocksDBException e) {
            throw failure("record the changes of batch " + batch, e);
        }
    }

    /** Every step sets a state and none adds to one, so applying a batch again after a crash midway is harmless. */
    @Override
    public void apply(long batch, String marker) {
        byte[] end = getPending(pendingKey(batch, PENDING_END));
        if (end == null) {
            throw new MirrorException(MirrorErrorCode.UNREADABLE_MIRROR,
                    "The document index in " + directory + " has no changes recorded for "
                    + "batch " + batch);
        }
        Map<String, Moved> moves = new HashMap<>();
        List<String> leaving = new ArrayList<>();
        byte[] prefix = pendingKey(batch, 0);
        try (RocksIterator chunks = db.newIterator(pendingFamily); WriteBatch write = new WriteBatch()) {
            prefix = Arrays.copyOf(prefix, Long.BYTES);
            for (chunks.seek(prefix); chunks.isValid() && startsWith(chunks.key(), prefix); chunks.next()) {
                if (ByteBuffer.wrap(chunks.key(), prefix.length, Integer.BYTES).getInt() == PENDING_END) {
                    continue;
                }
                DataInputStream in = new DataInputStream(new ByteArrayInputStream(chunks.value()));
                while (in.available() > 0) {
                    byte kind = in.readByte();
                    switch (kind) {
                        case CHANGED -> {
                            byte[] key = documentKey(in.readUTF().getBytes(StandardCharsets.UTF_8));
                            long[] places = new long[in.readInt()];
                            for (int index = 0; index < places.length; index++) {
                                places[index] = in.readLong();
                            }
                            if (places.length == 0) {
                                write.delete(documentFamily, key);
                            } else {
                                write.put(documentFamily, key, encodePlaces(places));
                            }
                            if (write.count() >= ENTRIES_PER_WRITE) {
                                db.write(writes, write);
                                write.clear();
                            }
                        }
                        case MOVED -> {
                            String file = in.readUTF();
                            String table = in.readUTF();
                            String newFile = in.readUTF();
                            int[] positions = new int[in.readInt()];
                            for (int position = 0; position < positions.length; position++) {
                                positions[position] = in.readInt();
                            }
                            moves.put(file, new Moved(table, newFile, positions));
                        }
                        case LEAVING -> leaving.add(in.readUTF());
                        default -> throw new IOException("unknown entry " + kind);
                    }
                }
            }
            db.write(writes, write);
        } catch (IOException | RocksDBException e) {
            throw new MirrorException(MirrorErrorCode.IO_FAILURE,
                    "The document index in " + directory + " cannot apply the changes of "
                    + "batch " + batch + ": " + e.getMessage(), e);
        }
        relocate(moves);
        leaving.forEach(this::forget);
        documents = ByteBuffer.wrap(end).getLong();
        try (WriteBatch write = new WriteBatch()) {
            write.put(documentFamily, DOCUMENTS, longBytes(documents));
            write.put(documentFamily, MARKER, marker.getBytes(StandardCharsets.UTF_8));
            write.deleteRange(pendingFamily, pendingKey(batch, 0), pendingKey(batch + 1, 0));
            db.write(writes, write);
        } catch (RocksDBException e) {
            throw failure("record the commit it reflects", e);
        }
    }

    @Override
    public void discard(long batch) {
        try {
            db.deleteRange(pendingFamily, writes, pendingKey(batch, 0), pendingKey(batch + 1, 0));
        } catch (RocksDBException e) {
            throw failure("drop the changes of batch " + batch, e);
        }
    }

    @Override
    public boolean catchUp(String rootUuid, long batch, boolean recordable) {
        String current = DocumentIndex.marker(rootUuid, batch);
        Optional<String> marker = marker();
        discard(batch + 1);
        if (!recordable) {
            discard(batch);
        }
        if (marker.filter(current::equals).isPresent()) {
            return true;
        }
        if (recordable && marker.filter(DocumentIndex.marker(rootUuid, batch - 1)::equals).isPresent()
                && getPending(pendingKey(batch, PENDING_END)) != null) {
            apply(batch, current);
            return true;
        }
        return false;
    }

    /**
     * Moves the rows of the data files a compaction rewrote ({@code moves}, by their location). The documents whose
     * rows moved are read from the key columns of the files the rows went to, so only those rows are read and only
     * those documents written, whatever the number of documents. Moving the same rows again changes nothing.
     */
    private void relocate(Map<String, Moved> moves) {
        Map<Integer, Moved> byOrdinal = new HashMap<>();
        Map<String, List<Integer>> byNewFile = new HashMap<>();
        for (Map.Entry<String, Moved> move : moves.entrySet()) {
            Integer ordinal = ordinals.get(move.getKey());
            if (ordinal != null) {
                byOrdinal.put(ordinal, move.getValue());
                byNewFile.computeIfAbsent(move.getValue().newFile(), file -> new ArrayList<>()).add(ordinal);
            }
        }
        for (Map.Entry<String, List<Integer>> newFile : byNewFile.entrySet()) {
            Moved into = byOrdinal.get(newFile.getValue().get(0));
            long newFileBase = place(into.table(), newFile.getKey(), 0);
            // The file's documents, a chunk at a time: looked up together, moved, written, then the next chunk. A
            // document whose rows span two chunks is read again after the first wrote it, and has nothing more to
            // move.
            Set<String> chunk = new LinkedHashSet<>();
            fileKeys.read(into.table(), newFile.getKey(), (position, documentKey) -> {
                chunk.add(documentKey);
                if (chunk.size() >= MULTI_GET_KEYS) {
                    move(chunk, byOrdinal, newFile.getKey(), newFileBase);
                }
            });
            move(chunk, byOrdinal, newFile.getKey(), newFileBase);
        }
    }

    /** Moves the places of {@code documents} that are in files a compaction rewrote into {@code newFile}. */
    private void move(Set<String> documents, Map<Integer, Moved> byOrdinal, String newFile, long newFileBase) {
        List<String> keys = List.copyOf(documents);
        documents.clear();
        List<long[]> found = of(keys);
        try (WriteBatch write = new WriteBatch()) {
            for (int document = 0; document < keys.size(); document++) {
                long[] places = found.get(document);
                boolean changed = false;
                for (int index = 0; index < places.length; index++) {
                    Moved moved = byOrdinal.get(ordinalOf(places[index]));
                    if (moved != null && moved.newFile().equals(newFile)) {
                        int to = moved.newPositions()[Math.toIntExact(DocumentIndex.position(places[index]))];
                        if (to < 0) {
                            throw new MirrorException(MirrorErrorCode.UNREADABLE_MIRROR,
                                    "Document " + keys.get(document).replace('\u0000', '/')
                                    + " has a row at " + DocumentIndex.position(places[index]) + " of "
                                    + file(places[index]).location() + ", which that file's deletion vector deletes");
                        }
                        places[index] = newFileBase | to;
                        changed = true;
                    }
                }
                if (changed) {
                    write.put(documentFamily, documentKey(keys.get(document).getBytes(StandardCharsets.UTF_8)),
                            encodePlaces(places));
                }
            }
            db.write(writes, write);
        } catch (RocksDBException e) {
            throw failure("move the rows into " + newFile, e);
        }
    }

    @Override
    public void forget(String dataFile) {
        Integer ordinal = ordinals.remove(dataFile);
        if (ordinal != null) {
            files.set(ordinal, null);
            freeOrdinals.push(ordinal);
            try {
                db.delete(documentFamily, writes, fileKey(ordinal));
            } catch (RocksDBException e) {
                throw failure("forget the data file " + dataFile, e);
            }
        }
    }

    @Override
    public void clear() {
        added.clear();
        try {
            db.deleteRange(documentFamily, writes, new byte[] {0}, new byte[] {(byte) 0xFF});
            db.deleteRange(pendingFamily, writes, new byte[] {0}, new byte[] {(byte) 0xFF});
        } catch (RocksDBException e) {
            throw failure("be emptied", e);
        }
        files.clear();
        ordinals.clear();
        freeOrdinals.clear();
        documents = 0;
    }

    @Override
    public long documents() {
        return documents;
    }

    @Override
    public void close() {
        added.close();
        documentFamily.close();
        pendingFamily.close();
        db.close();
        writes.close();
        options.forEach(RocksDbDocumentIndex::closeQuietly);
        filter.close();
    }

    @Override
    public String toString() {
        return "RocksDbDocumentIndex[" + documents + " documents in " + ordinals.size() + " files, at " + directory
                + "]";
    }

    /**
     * Writes a batch's recorded changes in chunks of about {@link #PENDING_CHUNK_BYTES}, an entry never split between
     * two, so that neither the heap nor a RocksDB block holds a large batch whole; the end entry goes last.
     */
    private final class PendingWriter implements AutoCloseable {
        private final long batch;
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final DataOutputStream data = new DataOutputStream(bytes);
        private int chunk;

        PendingWriter(long batch) {
            this.batch = batch;
            discard(batch);
        }

        void endOfEntry() throws RocksDBException {
            if (bytes.size() >= PENDING_CHUNK_BYTES) {
                writeChunk();
            }
        }

        void end(long documentsAfter) throws RocksDBException {
            writeChunk();
            db.put(pendingFamily, writes, pendingKey(batch, PENDING_END), longBytes(documentsAfter));
        }

        private void writeChunk() throws RocksDBException {
            if (bytes.size() > 0) {
                db.put(pendingFamily, writes, pendingKey(batch, chunk++), bytes.toByteArray());
                bytes.reset();
            }
        }

        @Override
        public void close() {
            bytes.reset();
        }
    }

    private static int ordinalOf(long place) {
        return (int) (place >>> POSITION_BITS);
    }

    private static byte[] documentKey(byte[] keyBytes) {
        return ByteBuffer.allocate(1 + keyBytes.length).put(DOCUMENT).put(keyBytes).array();
    }

    /** A row {@link #add} took: the document's key, length first so that a document's rows sort together. */
    private static byte[] addedRowKey(byte[] keyBytes, long place) {
        return ByteBuffer.allocate(1 + Integer.BYTES + keyBytes.length + Long.BYTES).put(ADDED_ROW)
                .putInt(keyBytes.length).put(keyBytes).putLong(place).array();
    }

    private static byte[] encodePlaces(long[] places) {
        ByteBuffer bytes = ByteBuffer.allocate(places.length * Long.BYTES);
        for (long place : places) {
            bytes.putLong(place);
        }
        return bytes.array();
    }

    private static long[] decodePlaces(byte[] bytes) {
        if (bytes == null) {
            return new long[0];
        }
        long[] places = new long[bytes.length / Long.BYTES];
        ByteBuffer.wrap(bytes).asLongBuffer().get(places);
        return places;
    }

    private static byte[] longBytes(long value) {
        return ByteBuffer.allocate(Long.BYTES).putLong(value).array();
    }

    /**
     * A chunk of a batch's recorded changes: the batch, then the chunk's number, both so that they sort in order
     * (the batch is never negative; the end entry, {@link #PENDING_END}, sorts after the chunks as an unsigned int).
     */
    private static byte[] pendingKey(long batch, int chunk) {
        return ByteBuffer.allocate(Long.BYTES + Integer.BYTES).putLong(batch).putInt(chunk).array();
    }

    private static byte[] fileKey(int ordinal) {
        return ByteBuffer.allocate(1 + Integer.BYTES).put(FILE).putInt(ordinal).array();
    }

    private static boolean startsWith(byte[] bytes, byte[] prefix) {
        return bytes.length >= prefix.length && Arrays.equals(bytes, 0, prefix.length, prefix, 0, prefix.length);
    }

    private byte[] get(byte[] key) {
        try {
            return db.get(documentFamily, key);
        } catch (RocksDBException e) {
            throw failure("be read", e);
        }
    }

    private byte[] getPending(byte[] key) {
        try {
            return db.get(pendingFamily, key);
        } catch (RocksDBException e) {
            throw failure("be read", e);
        }
    }

    private static void closeQuietly(AutoCloseable resource) {
        try {
            resource.close();
        } catch (Exception e) {
            throw new MirrorException(MirrorErrorCode.IO_FAILURE, "Cannot close " + resource, e);
        }
    }

    private MirrorException failure(String what, RocksDBException e) {
        return new MirrorException(MirrorErrorCode.IO_FAILURE,
                "The document index in " + directory + " cannot " + what + ": "
                + e.getMessage(), e);
    }
}
