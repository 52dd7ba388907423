package io.docmirror.mirror.iceberg;

import io.docmirror.layout.DeletionVectors;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Table;
import org.apache.iceberg.deletes.BaseDVFileWriter;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.io.DeleteWriteResult;
import org.apache.iceberg.io.OutputFileFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.function.LongConsumer;

/**
 * One table's deletion vectors: the committed vector of each data file, and the rows a batch deletes.
 *
 * <p>A data file has at most one deletion vector. Iceberg accepts a second one for the same file, and from then on
 * every scan of the table fails ("Can't index multiple DVs"), so a batch that deletes more rows of a file always
 * writes one vector holding the old positions and the new ones, and removes the old vector in the same commit.
 */
final class RowDeletions {
    private final Map<String, DeleteFile> committed;
    private final Map<String, NavigableSet<Long>> pending = new LinkedHashMap<>();
    /** Data files that leave the table in the batch, whose vectors go with them. */
    private final Set<String> removedFiles = new HashSet<>();
    private DeleteWriteResult written;

    /** @param committed each data file's committed deletion vector, by the data file's location */
    RowDeletions(Map<String, DeleteFile> committed) {
        this.committed = new HashMap<>(committed);
    }

    /** Deletes the row at {@code position} of {@code dataFile} in the batch. */
    void delete(String dataFile, long position) {
        pending.computeIfAbsent(dataFile, file -> new TreeSet<>()).add(position);
    }

    /** Whether the batch deleted the row at {@code position} of {@code dataFile}. */
    boolean isDeleted(String dataFile, long position) {
        NavigableSet<Long> positions = pending.get(dataFile);
        return positions != null && positions.contains(position);
    }

    /** Hands each row of {@code dataFile} the batch deleted to {@code action}, by position. */
    void forEachPending(String dataFile, LongConsumer action) {
        pending.getOrDefault(dataFile, Collections.emptyNavigableSet()).forEach(action::accept);
    }

    /** Forgets the batch's deletions in a data file that leaves the table, and its committed vector. */
    void forget(String dataFile) {
        pending.remove(dataFile);
        removedFiles.add(dataFile);
    }

    /**
     * Writes the batch's vectors into one Puffin file of {@code table}, merged with the committed vectors of the same
     * data files, and hands them to {@code add} and the vectors they replace to {@code remove} (a commit's).
     */
    void writeInto(Table table, Consumer<DeleteFile> add, Consumer<DeleteFile> remove) {
        if (pending.isEmpty()) {
            return;
        }
        // The factory names files <partition>-<task>-<random operation id>-<n>: unique without a task number.
        OutputFileFactory files = OutputFileFactory.builderFor(table, 0, 0).format(FileFormat.PUFFIN).build();
        BaseDVFileWriter writer = new BaseDVFileWriter(files, dataFile -> committedPositions(table, dataFile));
        try (writer) {
            for (Map.Entry<String, NavigableSet<Long>> file : pending.entrySet()) {
                for (long position : file.getValue()) {
                    writer.delete(file.getKey(), position, table.spec(), null);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write the deletion vectors of " + table.name(), e);
        }
        written = writer.result();
        written.deleteFiles().forEach(add);
        written.rewrittenDeleteFiles().forEach(remove);
    }

    /** The deletion-vector files the batch wrote. */
    List<String> writtenFiles() {
        return written == null
                ? List.of()
                : written.deleteFiles().stream().map(DeleteFile::location).distinct().toList();
    }

    /** After the commit: the batch's vectors are the committed ones now. */
    Map<String, DeleteFile> committedAfter() {
        Map<String, DeleteFile> after = new HashMap<>(committed);
        after.keySet().removeAll(removedFiles);
        if (written != null) {
            for (DeleteFile vector : written.deleteFiles()) {
                after.put(vector.referencedDataFile(), vector);
            }
        }
        return after;
    }

    private PositionDeleteIndex committedPositions(Table table, String dataFile) {
        DeleteFile vector = committed.get(dataFile);
        return vector == null ? null : DeletionVectors.read(table.io(), vector);
    }
}
