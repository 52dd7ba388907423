package io.docmirror.bench;

import io.docmirror.layout.CatalogPointers;
import io.docmirror.layout.MirrorProperties;
import io.docmirror.layout.MirrorTables;
import org.apache.iceberg.Table;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The rows and bytes of every table of a mirrored container (root, child tables, history, dead letters), read from
 * each table's current snapshot summary: no data file is read.
 *
 * @param rows each table's rows, by name
 * @param roles each table's role ({@link MirrorProperties#ROOT}, {@link MirrorProperties#HISTORY}...), by name
 */
record MirroredTables(Map<String, Long> rows, Map<String, String> roles, long bytes, long historyBytes) {
    /** Reads the tables of {@code container} in the mirror at {@code mirrorDirectory}, printing one line a table. */
    static MirroredTables read(Path mirrorDirectory, String container, PrintStream out) {
        Map<String, Long> rows = new LinkedHashMap<>();
        Map<String, String> roles = new LinkedHashMap<>();
        long bytes = 0;
        long historyBytes = 0;
        for (Table table : CatalogPointers.read(mirrorDirectory).tables(MirrorTables.namespace(container)).values()) {
            Map<String, String> summary = table.currentSnapshot().summary();
            long tableRows = Long.parseLong(summary.getOrDefault("total-records", "0"));
            long tableBytes = Long.parseLong(summary.getOrDefault("total-files-size", "0"));
            String role = table.properties().get(MirrorProperties.TABLE_ROLE);
            rows.put(table.name(), tableRows);
            roles.put(table.name(), role);
            bytes += tableBytes;
            if (role.equals(MirrorProperties.HISTORY)) {
                historyBytes += tableBytes;
            }
            out.printf(Locale.ROOT, "  table %s: %,d rows, %d columns, %s files, %,.1f MB%n", table.name(), tableRows,
                    table.schema().columns().size(), summary.getOrDefault("total-data-files", "0"), tableBytes / 1e6);
        }
        out.printf(Locale.ROOT, "  all data files %,.0f MB (the history %.0f%%)%n", bytes / 1e6,
                100.0 * historyBytes / bytes);
        return new MirroredTables(rows, roles, bytes, historyBytes);
    }

    /** The rows of every table that holds any. */
    Map<String, Long> nonEmpty() {
        Map<String, Long> nonEmpty = new LinkedHashMap<>(rows);
        nonEmpty.values().removeIf(count -> count == 0);
        return nonEmpty;
    }

    long totalRows() {
        return rows.values().stream().mapToLong(Long::longValue).sum();
    }

    /** The rows of the table with {@code role} (the root or the history: a container has one of each). */
    long rowsOf(String role) {
        return rows.entrySet().stream().filter(table -> roles.get(table.getKey()).equals(role))
                .mapToLong(Map.Entry::getValue).sum();
    }
}
