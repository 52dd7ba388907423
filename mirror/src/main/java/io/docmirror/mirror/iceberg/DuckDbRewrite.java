package io.docmirror.mirror.iceberg;

import io.docmirror.layout.DeletionVectors;
import io.docmirror.layout.LocalFileIO;
import io.docmirror.layout.TableView;
import io.docmirror.mirror.BackgroundDuckDb;
import io.docmirror.mirror.MirrorErrorCode;
import io.docmirror.mirror.MirrorException;
import io.docmirror.mirror.ScratchDirectory;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.deletes.PositionDeleteIndex;


import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Rewrites some of a table's data files into one file of their live rows with DuckDB, for compaction: DuckDB reads
 * the files by field id in one scan ({@link TableView#selectInFileOrder}), leaves out the rows their deletion vectors
 * delete, and writes the rest in file order with the fields' ids, with dictionaries where they pay and row groups of
 * 122,880 rows. Iceberg's column statistics are then read from the written file's footer.
 *
 * <p>Why DuckDB: copying rows through Iceberg's generic reader and writer cost 40 µs a row of the demo's orders, and
 * the daemon's commits waited for it (2 s for 50,000 rows); DuckDB takes about 3.5 µs a row on one thread. DuckDB
 * reads local files only, so tables on an object store are compacted by {@link RowCopier}.
 *
 * <p>Because the rows keep their order, where each row lands follows from the deletion vectors alone
 * ({@link Rewritten#newPositions}): the document index is moved without reading any key.
 */
final class DuckDbRewrite {
    /**
     * A rewrite's result.
     *
     * @param file the new data file, not yet part of the table
     * @param newPositions by rewritten file location: the new file's position of each of its rows, {@code -1} for a
     *     deleted one
     */
    record Rewritten(DataFile file, Map<String, int[]> newPositions) {
    }

    private DuckDbRewrite() {
    }

    /** Whether DuckDB can read every one of {@code files}: they are local. */
    static boolean canRead(List<DataFile> files) {
        return files.stream().allMatch(file -> LocalFileIO.isLocal(file.location()));
    }

    /**
     * Writes the live rows of {@code files}, read as {@code schema}, to a new data file of {@code table} at
     * {@code location}.
     *
     * @param vectors the files' deletion vectors, by data file location
     * @param scratch where DuckDB writes the file before it is copied to {@code location}, and spills
     */
    static Rewritten rewrite(Table table, Schema schema, List<DataFile> files, Map<String, DeleteFile> vectors,
            String location, ScratchDirectory scratch) {
        Map<String, PositionDeleteIndex> deleted = new LinkedHashMap<>();
        for (DataFile file : files) {
            DeleteFile vector = vectors.get(file.location());
            if (vector != null) {
                deleted.put(file.location(), DeletionVectors.read(table.io(), vector));
            }
        }
        Map<String, int[]> newPositions = new LinkedHashMap<>();
        int liveRows = 0;
        for (DataFile file : files) {
            int[] positions = new int[Math.toIntExact(file.recordCount())];
            PositionDeleteIndex fileDeletes = deleted.getOrDefault(file.location(), PositionDeleteIndex.empty());
            for (int position = 0; position < positions.length; position++) {
                positions[position] = fileDeletes.isDeleted(position) ? -1 : liveRows++;
            }
            newPositions.put(file.location(), positions);
        }
        TableView view = TableView.ofFiles(table.name(), schema, files, deleted);
        DataFile file = DuckDbParquet.dataFile(table, writeLocally(table, schema, view, scratch), location, liveRows,
                "The compaction of " + files.size() + " files");
        return new Rewritten(file, newPositions);
    }

    /** Has DuckDB write the view's live rows, in file order, to a temporary local file. */
    private static Path writeLocally(Table table, Schema schema, TableView view, ScratchDirectory scratch) {
        Path written = DuckDbParquet.localFile(scratch, table);
        try (Connection duckDb = BackgroundDuckDb.connect(scratch); Statement statement = duckDb.createStatement()) {
            statement.execute("COPY (" + view.selectInFileOrder() + ") TO " + TableView.literal(written.toString())
                    + " " + DuckDbParquet.copyOptions(table, schema));
        } catch (SQLException | RuntimeException e) {
            try {
                DuckDbParquet.delete(written);
            } catch (UncheckedIOException notDeleted) {
                e.addSuppressed(notDeleted);
            }
            throw new MirrorException(MirrorErrorCode.IO_FAILURE,
                    "Cannot compact " + view.dataFiles().size() + " files of "
                    + table.name() + ": " + e.getMessage(), e);
        }
        return written;
    }
}
