package io.docmirror.mirror.manifest;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import static java.util.Objects.requireNonNull;

/**
 * A backfill that has not finished: the feed ranges it has snapshotted so far, each as of one LSN, and the base files
 * it wrote for them. Readers do not see these files yet; the version that finishes the backfill swaps them in for
 * the tables' files all at once and starts the change feed at each range's LSN. A backfill killed midway goes on
 * from here, redoing only the ranges it had not committed.
 *
 * @param feedRanges how many feed ranges the container has
 * @param rangeLsns of each range done, the LSN its snapshot was taken at
 * @param tables per table, the base files written so far
 * @param items how many documents the done ranges held
 * @param lastEventTs the commit time (epoch milliseconds) of the newest version among them; 0 for none
 */
public record BackfillProgress(int feedRanges, Map<Integer, Long> rangeLsns, Map<String, List<DataFile>> tables,
        List<DataFile> history, List<DataFile> deadLetters, long items, long lastEventTs) {
    public BackfillProgress {
        requireNonNull(rangeLsns, "rangeLsns is null");
        rangeLsns = Map.copyOf(new TreeMap<>(rangeLsns));
        Map<String, List<DataFile>> copies = new TreeMap<>();
        tables.forEach((table, files) -> copies.put(table, List.copyOf(files)));
        tables = Map.copyOf(copies);
        history = List.copyOf(history);
        deadLetters = List.copyOf(deadLetters);
    }

    public static BackfillProgress start(int feedRanges) {
        return new BackfillProgress(feedRanges, Map.of(), Map.of(), List.of(), List.of(), 0, 0);
    }

    public boolean isDone(int feedRange) {
        return rangeLsns.containsKey(feedRange);
    }

    public boolean isComplete() {
        return rangeLsns.size() == feedRanges;
    }

    /** This progress with one more range done, at {@code lsn}, whose snapshot wrote these files. */
    public BackfillProgress withRange(int feedRange, long lsn, Map<String, List<DataFile>> tableFiles,
            List<DataFile> historyFiles, List<DataFile> deadLetterFiles, long rangeItems, long rangeLastEventTs) {
        Map<Integer, Long> lsns = new TreeMap<>(rangeLsns);
        lsns.put(feedRange, lsn);
        Map<String, List<DataFile>> allTables = new TreeMap<>(tables);
        tableFiles.forEach((table, files) -> allTables.put(table,
                Stream.concat(allTables.getOrDefault(table, List.of()).stream(), files.stream()).toList()));
        return new BackfillProgress(feedRanges, lsns, allTables,
                Stream.concat(history.stream(), historyFiles.stream()).toList(),
                Stream.concat(deadLetters.stream(), deadLetterFiles.stream()).toList(), items + rangeItems,
                Math.max(lastEventTs, rangeLastEventTs));
    }

    /** Every file written so far. */
    public List<DataFile> dataFiles() {
        List<DataFile> files = new ArrayList<>();
        tables.values().forEach(files::addAll);
        files.addAll(history);
        files.addAll(deadLetters);
        return files;
    }
}
