package io.docmirror.mirror.iceberg;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Where each document's current rows are: for every document key, the data file and position of its root row and of
 * each child row, in every table. An update or delete of the document turns these places into deletion-vector
 * entries, and the new version's places take over.
 *
 * <p>Memory is what bounds a mirror's size here, so a place is one {@code long}: the data file's ordinal in
 * {@link #files} (24 bits) and the row's position in it (40 bits). The key is the document's id and partition key.
 */
final class DocumentRows {
    private static final int POSITION_BITS = 40;
    private static final long POSITION_MASK = (1L << POSITION_BITS) - 1;
    private static final int MAX_FILES = 1 << (Long.SIZE - POSITION_BITS - 1);

    private final Map<String, long[]> places = new HashMap<>();
    private final List<DataFileRef> files = new ArrayList<>();
    private final Map<String, Integer> ordinals = new HashMap<>();
    /** Ordinals of files that left the tables, to give to new files: compaction replaces files all the time. */
    private final Deque<Integer> freeOrdinals = new ArrayDeque<>();

    /** A data file and the table it belongs to. */
    record DataFileRef(String table, String location) {
    }

    /** The key of a document: its id and its partition key (as JSON), which together name it in a container. */
    static String key(String id, String partitionKey) {
        return id + '\u0000' + partitionKey;
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
        }
        return ((long) ordinal << POSITION_BITS) | position;
    }

    static long position(long place) {
        return place & POSITION_MASK;
    }

    DataFileRef file(long place) {
        return files.get((int) (place >>> POSITION_BITS));
    }

    /** The document's rows now; empty when the mirror has none (never mirrored, deleted, or a dead letter). */
    long[] of(String key) {
        long[] rows = places.get(key);
        return rows == null ? new long[0] : rows;
    }

    /** The document's rows from now on, returning the ones they replace (empty when none). */
    long[] replace(String key, long[] rows) {
        long[] previous = rows.length == 0 ? places.remove(key) : places.put(key, rows);
        return previous == null ? new long[0] : previous;
    }

    /**
     * Where a compaction moved the rows of a data file: into {@code newFile} of {@code table}, at
     * {@code newPositions[position]} ({@code -1}: a deleted row, which no document may still have).
     */
    record Moved(String table, String newFile, int[] newPositions) {
    }

    /**
     * Moves the rows of the data files a compaction rewrote ({@code moves}, by their location), in every document
     * that has rows there: one pass over every document, whatever the number of files and tables.
     */
    void relocate(Map<String, Moved> moves) {
        Map<String, Long> newFileBits = new HashMap<>();
        moves.values().forEach(moved -> newFileBits.computeIfAbsent(moved.newFile(),
                file -> place(moved.table(), file, 0)));
        Moved[] byOrdinal = new Moved[files.size()];
        long[] bitsByOrdinal = new long[files.size()];
        moves.forEach((file, moved) -> {
            Integer ordinal = ordinals.get(file);
            if (ordinal != null) {
                byOrdinal[ordinal] = moved;
                bitsByOrdinal[ordinal] = newFileBits.get(moved.newFile());
            }
        });
        for (Map.Entry<String, long[]> document : places.entrySet()) {
            long[] rows = document.getValue();
            for (int index = 0; index < rows.length; index++) {
                int ordinal = (int) (rows[index] >>> POSITION_BITS);
                Moved moved = byOrdinal[ordinal];
                if (moved == null) {
                    continue;
                }
                int to = moved.newPositions()[Math.toIntExact(position(rows[index]))];
                if (to < 0) {
                    throw new IllegalStateException("Document " + document.getKey().replace('\u0000', '/')
                            + " has a row at " + position(rows[index]) + " of " + file(rows[index]).location()
                            + ", which that file's deletion vector deletes");
                }
                rows[index] = bitsByOrdinal[ordinal] | to;
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
        }
    }

    /** Forgets every document and file (a rebuild derives them afresh). */
    void clear() {
        places.clear();
        files.clear();
        ordinals.clear();
        freeOrdinals.clear();
    }

    /** How many documents have rows. */
    int documents() {
        return places.size();
    }

    @Override
    public String toString() {
        return "DocumentRows[" + places.size() + " documents in " + files.size() + " files, e.g. "
                + places.entrySet().stream().limit(1).map(entry -> entry.getKey() + "=" + Arrays.toString(
                        entry.getValue())).toList() + "]";
    }
}
