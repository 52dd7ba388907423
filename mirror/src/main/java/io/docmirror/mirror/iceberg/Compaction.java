package io.docmirror.mirror.iceberg;

import io.docmirror.mirror.ScratchDirectory;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One compaction of a container's tables, in three steps. Between batches, {@link ContainerTables} plans it: which
 * files of each table to rewrite ({@link CompactionPlan}), with their deletion vectors then. {@link #rewrite} then
 * writes each group's live rows into a new file with DuckDB: the slow part, which may run on a thread of its own
 * while batches go on being committed. Last, between batches again, the new files are committed in place of the
 * old ones; rows deleted in the old files since the plan are deleted in the new files at that commit, which
 * {@link DuckDbRewrite.Rewritten#newPositions} makes possible without reading the files again.
 */
final class Compaction {
    /**
     * Files of one table that become one new file.
     *
     * @param vectorsAtPlan the files' deletion vectors when the compaction was planned, by data file location
     * @param location where the new file goes
     */
    record Group(List<DataFile> files, Map<String, DeleteFile> vectorsAtPlan, String location) {
    }

    /**
     * What the compaction rewrites of one table.
     *
     * @param table the table as it was when the compaction was planned
     * @param keyColumn the column holding a row's document id, or null for a table no document index tracks
     * @param plan what the plan chose, for the log
     */
    record TableRewrite(String name, Table table, Schema schema, String keyColumn, CompactionPlan plan,
            List<Group> groups) {
    }

    private final List<TableRewrite> tables;
    /**
     * Each group's rewrite, by the group's new file location; a group on an object store has none. Read once
     * {@link #rewrite} has returned (on another thread: after the future that ran it completed).
     */
    private final Map<String, DuckDbRewrite.Rewritten> rewritten = new HashMap<>();

    Compaction(List<TableRewrite> tables) {
        this.tables = List.copyOf(tables);
    }

    List<TableRewrite> tables() {
        return tables;
    }

    /** Whether DuckDB can rewrite every group: its files are local. Others are copied row by row at the commit. */
    boolean isLocal() {
        return tables.stream().allMatch(table -> table.groups().stream()
                .allMatch(group -> DuckDbRewrite.canRead(group.files())));
    }

    /**
     * Rewrites each local group into its new file; any thread may call it, once.
     *
     * @param scratch where DuckDB writes each new file before it is copied into its table
     */
    Compaction rewrite(ScratchDirectory scratch) {
        for (TableRewrite table : tables) {
            for (Group group : table.groups()) {
                if (DuckDbRewrite.canRead(group.files())) {
                    rewritten.put(group.location(), DuckDbRewrite.rewrite(table.table(), table.schema(),
                            group.files(), group.vectorsAtPlan(), group.location(), scratch));
                }
            }
        }
        return this;
    }

    /** A group's rewrite; null when it was not rewritten (its files are on an object store). */
    DuckDbRewrite.Rewritten rewritten(Group group) {
        return rewritten.get(group.location());
    }

    /** The files {@link #rewrite} wrote: to delete when the compaction is not committed. */
    List<String> writtenFiles() {
        return new ArrayList<>(rewritten.keySet());
    }

    /** What the compaction rewrites, a line a table, for the log. */
    List<String> describe() {
        return tables.stream().map(table -> table.name() + ": " + table.plan()).toList();
    }
}
