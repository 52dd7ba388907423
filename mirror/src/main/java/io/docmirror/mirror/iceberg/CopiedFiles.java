package io.docmirror.mirror.iceberg;

import org.apache.iceberg.DataFile;
import org.apache.iceberg.Table;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;

/**
 * Where a row of a scaled-out stream's tables is after its file was copied to widen a column ({@link FileCopier}).
 * The stream's writers keep where their documents' rows are (file and position), and a widening copies files, so
 * those places go stale; rather than a map of every moved row, each copy keeps every row at its position and keeps
 * the tail of its source's name (what follows the number that starts it, a UUID and a sequence), and the file a row
 * is in now is the table's live file whose name has the same tail. A table whose files were ever copied this way
 * records the last batch that did in its property {@link #COPIED_AT}.
 */
public final class CopiedFiles {
    /** Table property: the number of the last batch that copied the table's files keeping positions. */
    static final String COPIED_AT = "docmirror.files-copied-at";

    /** The table's live data files, by the tail of their names. */
    private final Map<String, String> liveByTail;

    private CopiedFiles(Map<String, String> liveByTail) {
        this.liveByTail = liveByTail;
    }

    /** The live data files of {@code table}'s current snapshot (a listing of its manifests). */
    static CopiedFiles of(Table table, ExecutorService planner) {
        return of(TableChanges.liveFiles(table, planner).stream().map(DataFile::location).toList());
    }

    /** The live data files {@code locations}. */
    static CopiedFiles of(Collection<String> locations) {
        Map<String, String> liveByTail = new HashMap<>();
        locations.forEach(location -> liveByTail.put(tail(location), location));
        return new CopiedFiles(liveByTail);
    }

    /**
     * The file the rows of {@code location} are in now: its copy when a copy of it is live, else {@code location}
     * itself (live, or written but not committed yet).
     */
    String now(String location) {
        return liveByTail.getOrDefault(tail(location), location);
    }

    /** The batch that last copied {@code table}'s files keeping positions; 0 when none did. */
    static long copiedAt(Table table) {
        return Long.parseLong(table.properties().getOrDefault(COPIED_AT, "0"));
    }

    /** The name of the {@code copy}th copy made in batch {@code batch}, of the data file at {@code source}. */
    static String copyName(String source, long batch, int copy) {
        return String.format("%010dc%d-%s", batch, copy, tail(source));
    }

    /** What follows the first dash of a data file's name: what its copies keep. */
    static String tail(String location) {
        String name = location.substring(location.lastIndexOf('/') + 1);
        int dash = name.indexOf('-');
        if (dash < 0) {
            throw new IllegalArgumentException("The data file " + location + " is not named as the mirror names them");
        }
        return name.substring(dash + 1);
    }
}
