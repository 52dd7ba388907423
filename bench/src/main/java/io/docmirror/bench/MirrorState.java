package io.docmirror.bench;

import io.docmirror.layout.CatalogPointers;
import io.docmirror.layout.MirrorSummary;
import io.docmirror.layout.MirrorTables;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What a container's mirror looks like at one read of its embedded catalog, from the Iceberg snapshot summaries of
 * its tables: how many data files and deletion vectors each has, and what share of its rows are superseded (deleted by
 * a deletion vector, so that every query reads and drops them).
 *
 * @param batch the mirror's newest commit
 */
record MirrorState(long batch, List<TableState> tables) {
    /**
     * @param rows the rows of its data files, superseded ones included
     * @param deletedRows the rows its deletion vectors delete
     */
    record TableState(String name, long dataFiles, long deleteFiles, long rows, long deletedRows) {
        double supersededShare() {
            return rows == 0 ? 0 : (double) deletedRows / rows;
        }
    }

    static MirrorState read(Path mirrorDirectory, String container) {
        Map<String, Table> tables = CatalogPointers.read(mirrorDirectory).tables(MirrorTables.namespace(container));
        long batch = 0;
        List<TableState> states = new ArrayList<>();
        for (Map.Entry<String, Table> table : tables.entrySet()) {
            Snapshot current = table.getValue().currentSnapshot();
            if (current == null) {
                continue;
            }
            Map<String, String> summary = current.summary();
            batch = Math.max(batch, Long.parseLong(summary.getOrDefault(MirrorSummary.BATCH, "0")));
            states.add(new TableState(table.getKey(), total(summary, "total-data-files"),
                    total(summary, "total-delete-files"), total(summary, "total-records"),
                    total(summary, "total-position-deletes")));
        }
        return new MirrorState(batch, states);
    }

    /** The rows of {@code table} that are not superseded: its current rows. */
    long liveRows(String table) {
        return tables.stream().filter(state -> state.name().equals(table))
                .mapToLong(state -> state.rows() - state.deletedRows()).sum();
    }

    /**
     * One line: each table (its name after the container's, {@code root} for the root) with its data files, its
     * deletion vectors and its superseded rows.
     */
    String describe(String container) {
        StringBuilder line = new StringBuilder();
        for (TableState table : tables) {
            String name = table.name().equals(container) ? "root"
                    : table.name().startsWith(container) ? table.name().substring(container.length()) : table.name();
            line.append(String.format(Locale.ROOT, "%s%s %d files, %d DVs, %.2f%% superseded",
                    line.isEmpty() ? "" : "; ", name, table.dataFiles(), table.deleteFiles(),
                    100 * table.supersededShare()));
        }
        return line.toString();
    }

    private static long total(Map<String, String> summary, String key) {
        return Long.parseLong(summary.getOrDefault(key, "0"));
    }
}
