package io.docmirror.mirror.iceberg;

import io.docmirror.layout.DeletionVectors;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.Schema;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.types.Types;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * How a scaled-out stream's commit widens a column: each data file holding values of the old column is copied into
 * one new file, every row at the position it had and its widened values converted exactly ({@link RowCopier#widen}
 * says why a widened column is replaced). Deleted rows are copied too, and deleted again in the copy, so that a row's
 * position never changes; the copy keeps the tail of its source's name, by which the stream's writers and its
 * committer find the rows they knew in the source ({@link CopiedFiles}). The source leaves the table in the same
 * commit.
 */
final class FileCopier {
    private final TableChanges table;
    private final long batch;
    private int copies;

    FileCopier(TableChanges table, long batch) {
        this.table = table;
        this.batch = batch;
    }

    /**
     * Copies the files of the table holding values of the {@code widened} columns of {@code before}: committed ones
     * and those the batch added so far.
     *
     * @param committedVectors the table's committed deletion vectors, by data file
     */
    void widen(Schema before, Set<String> widened, Map<String, DeleteFile> committedVectors) {
        Set<String> leaving = Set.copyOf(table.leavingFiles());
        // Taken before the committed files' copies join them: a copy is of the wider schema already.
        List<DataFile> added = table.addedFiles();
        for (DataFile file : table.committedFiles()) {
            if (!leaving.contains(file.location()) && RowCopier.holdsValues(file, before, widened)) {
                copy(file, before, committedVectors.get(file.location()));
            }
        }
        for (DataFile file : added) {
            if (RowCopier.holdsValues(file, before, widened)) {
                copy(file, before, null);
            }
        }
    }

    /**
     * Copies a data file the batch added that a writer wrote against {@code writtenWith}, an earlier schema of the
     * table, when it holds values of a column widened since; returns whether it did.
     */
    boolean copyIfWidened(DataFile file, Schema writtenWith) {
        Set<String> widened = widenedSince(writtenWith, table.table().schema());
        if (widened.isEmpty() || !RowCopier.holdsValues(file, writtenWith, widened)) {
            return false;
        }
        copy(file, writtenWith, null);
        return true;
    }

    /** The columns of {@code before} that {@code after} holds as another field of the same name: the widened ones. */
    private static Set<String> widenedSince(Schema before, Schema after) {
        Set<String> widened = new HashSet<>();
        for (Types.NestedField field : before.columns()) {
            Types.NestedField now = after.findField(field.name());
            if (now != null && now.fieldId() != field.fieldId()) {
                widened.add(field.name());
            }
        }
        return widened;
    }

    /** Copies {@code file}, read as {@code before}, into a new file of the table's current schema. */
    private void copy(DataFile file, Schema before, DeleteFile committedVector) {
        Schema after = table.table().schema();
        Set<String> widened = widenedSince(before, after);
        String source = file.location();
        PositionDeleteIndex committedDeletes = committedVector == null ? PositionDeleteIndex.empty()
                : DeletionVectors.read(table.table().io(), committedVector);
        List<Long> deleted = new ArrayList<>();
        DataFileWriter copy = table.separateFile(CopiedFiles.copyName(source, batch, copies++));
        DataFile copied;
        try {
            LiveRows.read(table.table().io(), source, null, before, (position, record) -> {
                long to = copy.write(RowCopier.converted(record, before, after, widened));
                if (to != position) {
                    throw new IllegalStateException("The copy of " + source + " put row " + position + " at " + to);
                }
                if (committedDeletes.isDeleted(position) || table.isDeleted(source, position)) {
                    deleted.add(position);
                }
            });
            copied = copy.finish();
        } finally {
            copy.close();
        }
        table.addWritten(copied);
        deleted.forEach(position -> table.delete(copied.location(), position));
        table.removeFile(file, committedVector);
        if (copies == 1) {
            table.transaction().updateProperties().set(CopiedFiles.COPIED_AT, Long.toString(batch)).commit();
        }
    }
}
