package io.docmirror.mirror.iceberg;

import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Which of a table's data files one compaction rewrites, and into how many files: size-tiered, so that what a
 * compaction costs depends on the tier it merges, not on the table's size.
 *
 * <p>A file's tier is its live size (its bytes times the share of its rows no deletion vector deletes) in steps of
 * ten: under 1 MiB, under 10 MiB, under 100 MiB. When one tier holds {@code mirror.compaction.files} files, they are
 * merged into one file, a tier or so up: the small files of recent batches merge among themselves often and cheaply,
 * and a large file is read again only when as many files of its own size have gathered, so each row is rewritten
 * about once a tier (three or four times in all). Before, every file under 128 MiB was rewritten at every compaction,
 * the whole table when it is smaller than that: the daemon's commits waited seconds for it, longer as the table grew.
 *
 * <p>Superseded rows are the other reason to rewrite: a file of 1 MiB or more whose deletion vector deletes at least
 * a tenth of its rows is rewritten on its own into a file of its live rows, so that updates spread over a large table
 * keep a bounded share of its rows superseded. Smaller files shed their deleted rows when their tier merges.
 */
final class CompactionPlan {
    /** The upper bound of the smallest tier. */
    static final long SMALLEST_TIER_BYTES = 1L << 20;
    /** A file this large, or larger, merges with no other: rows are read again only for its deleted rows. */
    static final long LARGE_FILE_BYTES = 128L << 20;
    /** The share of a file's rows its deletion vector may delete before the file is rewritten, in percent. */
    static final int WORN_PERCENT = 10;
    private static final int TIER_GROWTH = 10;

    private final List<List<DataFile>> rewrites;

    private CompactionPlan(List<List<DataFile>> rewrites) {
        this.rewrites = rewrites;
    }

    /**
     * The plan for a table's live files.
     *
     * @param vectors the table's committed deletion vectors, by data file location
     * @param tierFiles {@code mirror.compaction.files}: how many files of one tier merge
     */
    static CompactionPlan of(List<DataFile> files, Map<String, DeleteFile> vectors, int tierFiles) {
        List<List<DataFile>> rewrites = new ArrayList<>();
        TreeMap<Integer, List<DataFile>> tiers = new TreeMap<>();
        for (DataFile file : files) {
            long deleted = deletedRows(file, vectors);
            if (file.fileSizeInBytes() >= SMALLEST_TIER_BYTES && deleted * 100 >= file.recordCount() * WORN_PERCENT) {
                rewrites.add(List.of(file));
                continue;
            }
            long liveBytes = file.recordCount() == 0 ? 0
                    : (long) (file.fileSizeInBytes() * ((double) (file.recordCount() - deleted) / file.recordCount()));
            if (liveBytes < LARGE_FILE_BYTES) {
                tiers.computeIfAbsent(tier(liveBytes), tier -> new ArrayList<>()).add(file);
            }
        }
        tiers.values().stream().filter(tier -> tier.size() >= tierFiles).forEach(rewrites::add);
        return new CompactionPlan(List.copyOf(rewrites));
    }

    /** The tier of a file of {@code liveBytes}: 0 under 1 MiB, 1 under 10 MiB, and so on. */
    static int tier(long liveBytes) {
        int tier = 0;
        for (long size = liveBytes / SMALLEST_TIER_BYTES; size > 0; size /= TIER_GROWTH) {
            tier++;
        }
        return tier;
    }

    private static long deletedRows(DataFile file, Map<String, DeleteFile> vectors) {
        DeleteFile vector = vectors.get(file.location());
        return vector == null ? 0 : vector.recordCount();
    }

    /** Whether the table is due: some files to rewrite. */
    boolean isDue() {
        return !rewrites.isEmpty();
    }

    /** What the plan rewrites, for the log: each group's files and bytes. */
    @Override
    public String toString() {
        return String.join(", ", rewrites.stream().map(files -> files.size() + " files of "
                + files.stream().mapToLong(DataFile::fileSizeInBytes).sum() / 1024 + " KiB").toList());
    }

    /** The groups of files to rewrite, each group into one new file of its live rows. */
    List<List<DataFile>> rewrites() {
        return rewrites;
    }
}
