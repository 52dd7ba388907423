package io.docmirror.mirror.iceberg;

import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;

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
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Where each document's current rows are, on disk: for every document key, the data file and position of its root
 * row and of each child row, in every table. An update or delete of the document turns these places into
 * deletion-vector entries, and the new version's places take over. It lives in RocksDB in the container's directory,
 * so the mirror's heap does not grow with the container, and it survives a restart: its {@link #marker} names the
 * commit it reflects, and an index whose marker is not the catalog's last commit is rebuilt from the tables.
 *
 * <p>A place is one {@code long}: the data file's ordinal (24 bits) and the row's position in it (40 bits). The data
 * files are few (compaction keeps them so) and their ordinals are kept in heap too; the documents are not. A document
 * is one entry ({@code D}, key to its places), found by a point look-up with a Bloom filter; each row is one more
 * ({@code R}, place to key), so that moving the rows of a compacted file reads only that file's rows.
 *
 * <p>A commit's changes are recorded before the catalog commit ({@link #prepare}) and made after it ({@link #apply}),
 * with the marker in the same last write: a crash before the catalog commit leaves the index at the commit before,
 * a crash after it leaves the index one commit behind with that commit's changes recorded, which opening the tables
 * applies ({@link #catchUp}). Only a lost index, or one a backfill left behind, is rebuilt from the tables' rows.
 * Not thread-safe.
 */
final class DocumentIndex implements AutoCloseable {
    private static final int POSITION_BITS = 40;
    private static final long POSITION_MASK = (1L << POSITION_BITS) - 1;
    private static final int MAX_FILES = 1 << (Long.SIZE - POSITION_BITS - 1);
    private static final byte DOCUMENT = 'D';
    /** A row a rebuild took, until {@link #mark} gathers the document's rows ({@link #add}). */
    private static final byte ADDED_ROW = 'A';
    private static final byte ROW = 'R';
    private static final byte FILE = 'F';
    /** A commit's changes, recorded before the catalog commit ({@link #prepare}). */
    private static final byte PENDING = 'P';
    private static final byte[] MARKER = "Mmarker".getBytes(StandardCharsets.UTF_8);
    private static final byte[] DOCUMENTS = "Mdocuments".getBytes(StandardCharsets.UTF_8);
    private static final byte[] NOTHING = new byte[0];
    private static final long WRITE_BUFFER_BYTES = 16L << 20;
    /** How many entries a rebuild writes at once. */
    private static final int ADDS_PER_WRITE = 20_000;

    static {
        RocksDB.loadLibrary();
    }

    private final Path directory;
    private final BloomFilter filter;
    private final Options options;
    private final RocksDB db;
    private final WriteOptions writes = new WriteOptions();
    /** Rows {@link #add} took and has not written yet. */
    private final WriteBatch pending = new WriteBatch();
    private final List<DataFileRef> files = new ArrayList<>();
    private final Map<String, Integer> ordinals = new HashMap<>();
    /** Ordinals of files that left the tables, to give to new files: compaction replaces files all the time. */
    private final Deque<Integer> freeOrdinals = new ArrayDeque<>();
    private long documents;

    /** A data file and the table it belongs to. */
    record DataFileRef(String table, String location) {
    }

    /**
     * Where a compaction moved the rows of a data file: into {@code newFile} of {@code table}, at
     * {@code newPositions[position]} ({@code -1}: a deleted row, which no document may still have).
     */
    record Moved(String table, String newFile, int[] newPositions) {
    }

    private DocumentIndex(Path directory, BloomFilter filter, Options options, RocksDB db) {
        this.directory = directory;
        this.filter = filter;
        this.options = options;
        this.db = db;
    }

    /** Opens the index in {@code directory}, creating it when there is none. */
    static DocumentIndex open(Path directory) {
        // Small memtables: a daemon holds one index per container it mirrors, each with its own native memory.
        // Bloom filters: most look-ups are of documents the index does not have yet (creates).
        BloomFilter filter = new BloomFilter(10, false);
        Options options = new Options().setCreateIfMissing(true).setWriteBufferSize(WRITE_BUFFER_BYTES)
                .setMaxWriteBufferNumber(2).setTableFormatConfig(new BlockBasedTableConfig().setFilterPolicy(filter));
        try {
            Files.createDirectories(directory);
            DocumentIndex index = new DocumentIndex(directory, filter, options,
                    RocksDB.open(options, directory.toString()));
            index.loadFiles();
            return index;
        } catch (IOException e) {
            options.close();
            filter.close();
            throw new UncheckedIOException("Cannot create the document index in " + directory, e);
        } catch (RocksDBException e) {
            options.close();
            filter.close();
            throw new IllegalStateException("Cannot open the document index in " + directory + ": " + e.getMessage(),
                    e);
        }
    }

    private void loadFiles() throws RocksDBException {
        try (RocksIterator entries = db.newIterator()) {
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
        byte[] count = db.get(DOCUMENTS);
        documents = count == null ? 0 : ByteBuffer.wrap(count).getLong();
    }

    /** The key of a document: its id and its partition key (as JSON), which together name it in a container. */
    static String key(String id, String partitionKey) {
        return id + '\u0000' + partitionKey;
    }

    /** How the index names a commit: the root table's Iceberg UUID and the batch. */
    static String marker(String rootUuid, long batch) {
        return rootUuid + "@" + batch;
    }

    /** The commit the index reflects, as {@link #mark} named it; empty while it is being rebuilt. */
    Optional<String> marker() {
        byte[] marker = get(MARKER);
        return marker == null ? Optional.empty() : Optional.of(new String(marker, StandardCharsets.UTF_8));
    }

    /** Says the index reflects no commit: before it is rebuilt, and after a commit it does not follow (a backfill). */
    void unmark() {
        delete(MARKER);
    }

    /** Says the index, rebuilt from the tables ({@link #add}), reflects the commit {@code marker}. */
    void mark(String marker) {
        flush();
        gatherAddedRows();
        try (WriteBatch batch = new WriteBatch()) {
            batch.put(DOCUMENTS, ByteBuffer.allocate(Long.BYTES).putLong(documents).array());
            batch.put(MARKER, marker.getBytes(StandardCharsets.UTF_8));
            db.write(writes, batch);
        } catch (RocksDBException e) {
            throw failure("record the commit it reflects", e);
        }
    }

    /** The place of the row at {@code position} of {@code dataFile}, a file of {@code table}. */
    long place(String table, String dataFile, long position) {
        if (position < 0 || position > POSITION_MASK) {
            throw new IllegalArgumentException("Row position " + position + " of " + dataFile + " is out of range");
        }
        Integer ordinal = ordinals.get(dataFile);
        if (ordinal == null) {
            if (!freeOrdinals.isEmpty()) {
                ordinal = freeOrdinals.pop();
                files.set(ordinal, new DataFileRef(table, dataFile));
            } else if (files.size() == MAX_FILES) {
                throw new IllegalStateException("The mirror tracks " + MAX_FILES + " data files already; compaction "
                        + "must replace some before more are written");
            } else {
                ordinal = files.size();
                files.add(new DataFileRef(table, dataFile));
            }
            ordinals.put(dataFile, ordinal);
            put(fileKey(ordinal), (table + '\u0000' + dataFile).getBytes(StandardCharsets.UTF_8));
        }
        return ((long) ordinal << POSITION_BITS) | position;
    }

    static long position(long place) {
        return place & POSITION_MASK;
    }

    DataFileRef file(long place) {
        return files.get(ordinalOf(place));
    }

    /** The document's rows now; empty when the mirror has none (never mirrored, deleted, or a dead letter). */
    long[] of(String key) {
        return decodePlaces(get(documentKey(key.getBytes(StandardCharsets.UTF_8))));
    }

    /**
     * Adds one row to a document's rows, written with the next ones: how the index is rebuilt from the tables, a
     * row at a time, in any order; {@link #mark} gathers each document's rows into its entry. Every document has one
     * root row, so a document is counted with it.
     *
     * @param rootRow whether the row is the document's root row
     */
    void add(String key, long place, boolean rootRow) {
        byte[] keyBytes = key.getBytes(StandardCharsets.UTF_8);
        try {
            pending.put(addedRowKey(keyBytes, place), NOTHING);
            pending.put(rowKey(place), keyBytes);
        } catch (RocksDBException e) {
            throw failure("note a row of document " + key.replace('\u0000', '/'), e);
        }
        if (rootRow) {
            documents++;
        }
        if (pending.count() >= ADDS_PER_WRITE) {
            flush();
        }
    }

    /**
     * Turns the rows {@link #add} wrote, one entry a row sorted by document, into one entry a document: a single pass
     * in key order.
     */
    private void gatherAddedRows() {
        byte[] prefix = {ADDED_ROW};
        try (RocksIterator entries = db.newIterator(); WriteBatch batch = new WriteBatch()) {
            byte[] document = null;
            long[] places = new long[0];
            for (entries.seek(prefix); entries.isValid() && entries.key()[0] == ADDED_ROW; entries.next()) {
                byte[] key = entries.key();
                byte[] keyBytes = Arrays.copyOfRange(key, 1 + Integer.BYTES, key.length - Long.BYTES);
                long place = ByteBuffer.wrap(key, key.length - Long.BYTES, Long.BYTES).getLong();
                if (document != null && !Arrays.equals(document, keyBytes)) {
                    batch.put(documentKey(document), encodePlaces(places));
                    places = new long[0];
                    if (batch.count() >= ADDS_PER_WRITE) {
                        db.write(writes, batch);
                        batch.clear();
                    }
                }
                document = keyBytes;
                places = Arrays.copyOf(places, places.length + 1);
                places[places.length - 1] = place;
            }
            if (document != null) {
                batch.put(documentKey(document), encodePlaces(places));
            }
            batch.deleteRange(new byte[] {ADDED_ROW}, new byte[] {(byte) (ADDED_ROW + 1)});
            db.write(writes, batch);
        } catch (RocksDBException e) {
            throw failure("gather the rows it was rebuilt with", e);
        }
    }

    /** Writes the rows {@link #add} holds. */
    private void flush() {
        if (pending.count() == 0) {
            return;
        }
        try {
            db.write(writes, pending);
            pending.clear();
        } catch (RocksDBException e) {
            throw failure("be written", e);
        }
    }

    /**
     * Records, before the catalog commit of batch {@code batch}, what the commit changes in the index: each changed
     * document's rows from then on, the rows a compaction moves, the files that leave the tables. Nothing else
     * changes yet; {@link #apply} makes it so once the catalog has taken the batch, and a crash in between leaves
     * the index one commit behind with the way to catch up ({@link #catchUp}).
     */
    void prepare(long batch, Map<String, long[]> changed, Map<String, Moved> moves, List<String> leavingFiles) {
        flush();
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            long documentsAfter = documents;
            out.writeInt(changed.size());
            for (Map.Entry<String, long[]> document : changed.entrySet()) {
                boolean had = of(document.getKey()).length > 0;
                boolean has = document.getValue().length > 0;
                documentsAfter += (has ? 1 : 0) - (had ? 1 : 0);
                out.writeUTF(document.getKey());
                out.writeInt(document.getValue().length);
                for (long place : document.getValue()) {
                    out.writeLong(place);
                }
            }
            out.writeInt(moves.size());
            for (Map.Entry<String, Moved> move : moves.entrySet()) {
                out.writeUTF(move.getKey());
                out.writeUTF(move.getValue().table());
                out.writeUTF(move.getValue().newFile());
                out.writeInt(move.getValue().newPositions().length);
                for (int position : move.getValue().newPositions()) {
                    out.writeInt(position);
                }
            }
            out.writeInt(leavingFiles.size());
            for (String file : leavingFiles) {
                out.writeUTF(file);
            }
            out.writeLong(documentsAfter);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot encode the index changes of batch " + batch, e);
        }
        put(pendingKey(batch), bytes.toByteArray());
    }

    /**
     * Makes what {@link #prepare} recorded for {@code batch} so, and marks the index as reflecting {@code marker}.
     * Applying it again after a crash midway gives the same index: every step sets a state, none adds to one.
     */
    void apply(long batch, String marker) {
        byte[] delta = get(pendingKey(batch));
        if (delta == null) {
            throw new IllegalStateException("The document index in " + directory + " has no changes recorded for "
                    + "batch " + batch);
        }
        try (DataInputStream in = new DataInputStream(new java.io.ByteArrayInputStream(delta))) {
            try (WriteBatch batchWrite = new WriteBatch()) {
                int changed = in.readInt();
                for (int document = 0; document < changed; document++) {
                    String key = in.readUTF();
                    long[] rows = new long[in.readInt()];
                    for (int index = 0; index < rows.length; index++) {
                        rows[index] = in.readLong();
                    }
                    byte[] keyBytes = key.getBytes(StandardCharsets.UTF_8);
                    for (long place : of(key)) {
                        batchWrite.delete(rowKey(place));
                    }
                    if (rows.length == 0) {
                        batchWrite.delete(documentKey(keyBytes));
                    } else {
                        batchWrite.put(documentKey(keyBytes), encodePlaces(rows));
                    }
                    for (long place : rows) {
                        batchWrite.put(rowKey(place), keyBytes);
                    }
                }
                db.write(writes, batchWrite);
            }
            Map<String, Moved> moves = new HashMap<>();
            int moved = in.readInt();
            for (int index = 0; index < moved; index++) {
                String file = in.readUTF();
                String table = in.readUTF();
                String newFile = in.readUTF();
                int[] positions = new int[in.readInt()];
                for (int position = 0; position < positions.length; position++) {
                    positions[position] = in.readInt();
                }
                moves.put(file, new Moved(table, newFile, positions));
            }
            relocate(moves);
            int leaving = in.readInt();
            for (int index = 0; index < leaving; index++) {
                forget(in.readUTF());
            }
            documents = in.readLong();
        } catch (IOException | RocksDBException e) {
            throw new IllegalStateException("The document index in " + directory + " cannot apply the changes of "
                    + "batch " + batch + ": " + e.getMessage(), e);
        }
        try (WriteBatch batchWrite = new WriteBatch()) {
            batchWrite.put(DOCUMENTS, ByteBuffer.allocate(Long.BYTES).putLong(documents).array());
            batchWrite.put(MARKER, marker.getBytes(StandardCharsets.UTF_8));
            batchWrite.delete(pendingKey(batch));
            db.write(writes, batchWrite);
        } catch (RocksDBException e) {
            throw failure("record the commit it reflects", e);
        }
    }

    /** Drops what {@link #prepare} recorded for a batch the catalog did not take. */
    void discard(long batch) {
        delete(pendingKey(batch));
    }

    /**
     * Brings the index to the catalog's last commit, {@code marker} (batch {@code batch} of the root table
     * {@code rootUuid}), when it reflects that commit already or the one before with the changes of this one
     * recorded; false when it cannot (it must be rebuilt from the tables). Changes recorded for a later batch, one the
     * catalog never took, are dropped.
     */
    boolean catchUp(String rootUuid, long batch) {
        String current = marker(rootUuid, batch);
        Optional<String> marker = marker();
        discard(batch + 1);
        if (marker.filter(current::equals).isPresent()) {
            return true;
        }
        if (marker.filter(marker(rootUuid, batch - 1)::equals).isPresent() && get(pendingKey(batch)) != null) {
            apply(batch, current);
            return true;
        }
        return false;
    }

    /**
     * Moves the rows of the data files a compaction rewrote ({@code moves}, by their location): only the rows those
     * files hold are read and written, whatever the number of documents.
     */
    void relocate(Map<String, Moved> moves) {
        flush();
        for (Map.Entry<String, Moved> move : moves.entrySet()) {
            Integer ordinal = ordinals.get(move.getKey());
            if (ordinal == null) {
                continue;
            }
            Moved moved = move.getValue();
            long newFile = place(moved.table(), moved.newFile(), 0);
            // The row keys of one file: the ordinal is the place's top three bytes.
            byte[] prefix = Arrays.copyOf(rowKey((long) ordinal << POSITION_BITS), 1 + 3);
            // The documents with rows in the file, with their rows as moved so far: as many as the file has rows.
            Map<String, long[]> documentsMoved = new HashMap<>();
            try (RocksIterator entries = db.newIterator(); WriteBatch batch = new WriteBatch()) {
                for (entries.seek(prefix); entries.isValid() && startsWith(entries.key(), prefix); entries.next()) {
                    long from = ByteBuffer.wrap(entries.key(), 1, Long.BYTES).getLong();
                    String key = new String(entries.value(), StandardCharsets.UTF_8);
                    int to = moved.newPositions()[Math.toIntExact(position(from))];
                    if (to < 0) {
                        throw new IllegalStateException("Document " + key.replace('\u0000', '/') + " has a row at "
                                + position(from) + " of " + move.getKey() + ", which that file's deletion vector "
                                + "deletes");
                    }
                    long place = newFile | to;
                    long[] places = documentsMoved.computeIfAbsent(key, this::of);
                    for (int index = 0; index < places.length; index++) {
                        if (places[index] == from) {
                            places[index] = place;
                        }
                    }
                    batch.delete(rowKey(from));
                    batch.put(rowKey(place), entries.value());
                }
                for (Map.Entry<String, long[]> document : documentsMoved.entrySet()) {
                    batch.put(documentKey(document.getKey().getBytes(StandardCharsets.UTF_8)),
                            encodePlaces(document.getValue()));
                }
                db.write(writes, batch);
            } catch (RocksDBException e) {
                throw failure("move the rows of " + move.getKey(), e);
            }
        }
    }

    /**
     * Forgets a data file that left the tables (or never joined them): no document's rows are in it any more, so its
     * ordinal may name another file.
     */
    void forget(String dataFile) {
        Integer ordinal = ordinals.remove(dataFile);
        if (ordinal != null) {
            files.set(ordinal, null);
            freeOrdinals.push(ordinal);
            delete(fileKey(ordinal));
        }
    }

    /** Forgets every document and file (the index is rebuilt from the tables, or a rebuild derives them afresh). */
    void clear() {
        pending.clear();
        try {
            db.deleteRange(new byte[] {0}, new byte[] {(byte) 0xFF});
        } catch (RocksDBException e) {
            throw failure("be emptied", e);
        }
        files.clear();
        ordinals.clear();
        freeOrdinals.clear();
        documents = 0;
    }

    /** How many documents have rows. */
    long documents() {
        return documents;
    }

    @Override
    public void close() {
        pending.close();
        db.close();
        writes.close();
        options.close();
        filter.close();
    }

    @Override
    public String toString() {
        return "DocumentIndex[" + documents + " documents in " + ordinals.size() + " files, at " + directory + "]";
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

    private static byte[] rowKey(long place) {
        return ByteBuffer.allocate(1 + Long.BYTES).put(ROW).putLong(place).array();
    }

    private static byte[] pendingKey(long batch) {
        return ByteBuffer.allocate(1 + Long.BYTES).put(PENDING).putLong(batch).array();
    }

    private static byte[] fileKey(int ordinal) {
        return ByteBuffer.allocate(1 + Integer.BYTES).put(FILE).putInt(ordinal).array();
    }

    private static boolean startsWith(byte[] bytes, byte[] prefix) {
        return bytes.length >= prefix.length && Arrays.equals(bytes, 0, prefix.length, prefix, 0, prefix.length);
    }

    private byte[] get(byte[] key) {
        try {
            return db.get(key);
        } catch (RocksDBException e) {
            throw failure("be read", e);
        }
    }

    private void put(byte[] key, byte[] value) {
        try {
            db.put(writes, key, value);
        } catch (RocksDBException e) {
            throw failure("be written", e);
        }
    }

    private void delete(byte[] key) {
        try {
            db.delete(writes, key);
        } catch (RocksDBException e) {
            throw failure("be written", e);
        }
    }

    private IllegalStateException failure(String what, RocksDBException e) {
        return new IllegalStateException("The document index in " + directory + " cannot " + what + ": "
                + e.getMessage(), e);
    }
}
