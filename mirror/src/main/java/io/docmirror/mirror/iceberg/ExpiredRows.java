package io.docmirror.mirror.iceberg;

import io.docmirror.layout.FileDamage;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;

import static io.docmirror.flatten.SystemColumn.TS;

/**
 * Finds the rows an analytical TTL expires in one table with a {@code _ts} column (the root table, the history): the
 * live rows whose {@code _ts} is at or before a cutoff, or null, since the views' {@code _ts > now - ttl} keeps
 * neither.
 *
 * <p>It reads only data files that may hold one. Iceberg's planning leaves out each file whose {@code _ts} lower
 * bound (column statistics in the manifests) is past the cutoff, and a file read once is remembered with the lowest
 * {@code _ts} among the rows the expiry leaves it, so it is read again only when the cutoff reaches that. The
 * remembered values hold because a data file's rows are only ever deleted, never added.
 */
final class ExpiredRows {
    /** Receives one expired row: its data file, its position there and the columns asked for. */
    @FunctionalInterface
    interface Sink {
        void accept(String dataFile, long position, Record row);
    }

    /** By data file: the lowest {@code _ts} of the rows it keeps once the expiry that read it is committed. */
    private final Map<String, Long> lowestKept = new HashMap<>();

    /** What one call of {@link #find} did: how many data files it read, and whether it read all that were due. */
    record Found(int filesRead, boolean complete) {
    }

    /**
     * Hands each live row of {@code table} whose {@code _ts} is at or before {@code cutoff} to {@code sink}, read
     * with {@code columns}, a file at a time until it has handed over {@code budget} rows: the files left are read by
     * the next call. Files that cannot be read as recorded are left to {@code docmirror repair}. What is remembered
     * counts on these rows being deleted: when their commit fails, {@link #forgetAll} must follow.
     */
    Found find(Table table, ExecutorService planner, long cutoff, List<String> columns, long budget, Sink sink) {
        if (table.currentSnapshot() == null) {
            return new Found(0, true);
        }
        Schema projection = table.schema().select(columnsWithTs(columns));
        int read = 0;
        long handedOver = 0;
        boolean complete = true;
        Set<String> planned = new HashSet<>();
        try (CloseableIterable<FileScanTask> tasks = table.newScan()
                .filter(Expressions.or(Expressions.isNull(TS.columnName()),
                        Expressions.lessThanOrEqual(TS.columnName(), cutoff)))
                .planWith(planner)
                .planFiles()) {
            for (FileScanTask task : tasks) {
                String location = task.file().location();
                planned.add(location);
                if (lowestKept.getOrDefault(location, Long.MIN_VALUE) > cutoff
                        || FileDamage.of(table.io(), location, task.file().fileSizeInBytes()).isPresent()) {
                    continue;
                }
                if (handedOver >= budget) {
                    complete = false;
                    continue;
                }
                long[] lowest = {Long.MAX_VALUE};
                long[] expired = {0};
                LiveRows.read(table.io(), location, LiveRows.vectorOf(task), projection, (position, row) -> {
                    Long ts = (Long) row.getField(TS.columnName());
                    if (ts == null || ts <= cutoff) {
                        sink.accept(location, position, row);
                        expired[0]++;
                    } else {
                        lowest[0] = Math.min(lowest[0], ts);
                    }
                });
                lowestKept.put(location, lowest[0]);
                handedOver += expired[0];
                read++;
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot plan the files of " + table.name(), e);
        }
        // A remembered file that was not planned has left the table (a compaction, a widening): forget it.
        lowestKept.keySet().retainAll(planned);
        return new Found(read, complete);
    }

    /** Forgets every file read: after a failed commit, their expired rows are still there. */
    void forgetAll() {
        lowestKept.clear();
    }

    private static List<String> columnsWithTs(List<String> columns) {
        List<String> withTs = new ArrayList<>(columns);
        if (!withTs.contains(TS.columnName())) {
            withTs.add(TS.columnName());
        }
        return withTs;
    }
}
