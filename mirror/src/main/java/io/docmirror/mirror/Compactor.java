package io.docmirror.mirror;

import io.docmirror.mirror.manifest.ColumnEntry;
import io.docmirror.mirror.manifest.DataFile;
import io.docmirror.mirror.manifest.Manifest;
import io.docmirror.mirror.manifest.TableEntry;
import io.docmirror.mirror.manifest.ViewDefinitions;
import io.docmirror.mirror.parquet.ParquetOptions;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.UUID;

import static io.docmirror.mirror.manifest.ViewDefinitions.literal;
import static java.util.Objects.requireNonNull;

/**
 * Folds every table of one committed manifest version into one base file per table that holds just its current
 * rows: of each key the newest version unless it is deleted, without rows past the analytical TTL, and for a child
 * table the rows of its documents' current versions. The query is the views' own ({@link ViewDefinitions}), run by
 * DuckDB, so a compacted version answers every query as the version it replaces does. Files are written under
 * temporary names; {@link ContainerMirror#commitCompaction} renames them and commits them as a new version, in
 * which newer delta files stay on top of the base.
 */
final class Compactor {
    /** Temporary files of a compaction in progress start with this; a crash leaves them, the next open removes them. */
    static final String TEMPORARY_PREFIX = ".compact-";

    private final Path containerDirectory;
    private final ParquetOptions parquet;

    /**
     * One table's new base file (none when no row is current), and the files it replaces.
     *
     * @param columns the table's columns as the file holds them: those of the compacted version
     */
    record CompactedTable(String table, List<ColumnEntry> columns, List<DataFile> replaced, Path temporaryFile,
            long rows, long minLsn, long maxLsn) {
        CompactedTable {
            columns = List.copyOf(columns);
            replaced = List.copyOf(replaced);
        }

        boolean isEmpty() {
            return temporaryFile == null;
        }
    }

    /** A compaction of manifest version {@code snapshotVersion}, ready to commit. */
    record Compaction(long snapshotVersion, List<CompactedTable> tables) {
        Compaction {
            tables = List.copyOf(tables);
        }

        /** Removes the temporary files of a compaction that will not be committed. */
        void discard() {
            for (CompactedTable table : tables) {
                if (!table.isEmpty()) {
                    try {
                        Files.deleteIfExists(table.temporaryFile());
                    } catch (IOException e) {
                        throw new UncheckedIOException("Cannot remove " + table.temporaryFile(), e);
                    }
                }
            }
        }
    }

    Compactor(Path containerDirectory, ParquetOptions parquet) {
        this.containerDirectory = requireNonNull(containerDirectory, "containerDirectory is null");
        this.parquet = requireNonNull(parquet, "parquet is null");
    }

    /**
     * Writes the base files of every table of {@code snapshot} that has files.
     *
     * @param nowEpochSeconds the time the analytical TTL counts back from
     */
    Compaction compact(Manifest snapshot, long nowEpochSeconds) {
        ViewDefinitions views = new ViewDefinitions(snapshot, containerDirectory, OptionalLong.of(nowEpochSeconds));
        TableEntry root = snapshot.root();
        List<CompactedTable> tables = new ArrayList<>();
        try (Connection connection = BackgroundDuckDb.connect();
                Statement statement = connection.createStatement()) {
            statement.execute("SET preserve_insertion_order = false");
            String rootRows = "(" + views.currentRows(root, null) + ")";
            for (TableEntry table : snapshot.tables()) {
                if (table.files().isEmpty()) {
                    continue;
                }
                String order = table.isRoot() ? "_pk, id" : "_pk, _id, _idx";
                String rows = views.currentRows(table, rootRows) + " ORDER BY " + order;
                tables.add(write(statement, snapshot.version(), tables.size(), table, rows));
            }
        } catch (SQLException e) {
            new Compaction(snapshot.version(), tables).discard();
            throw new IllegalStateException("Cannot compact version " + snapshot.version() + " of the mirror of "
                    + snapshot.container() + ": " + e.getMessage(), e);
        }
        return new Compaction(snapshot.version(), tables);
    }

    private CompactedTable write(Statement statement, long snapshotVersion, int index, TableEntry table, String rows)
            throws SQLException {
        // Unique, so that a compaction abandoned by a closed mirror can never write over a later one's file.
        Path file = containerDirectory.resolve(MirrorLayout.tableDirectory(table.name())).resolve(TEMPORARY_PREFIX
                + String.format(Locale.ROOT, "%012d-%d-%s.parquet.tmp", snapshotVersion, index, UUID.randomUUID()));
        try {
            Files.createDirectories(file.getParent());
            statement.execute("COPY (" + rows + ") TO " + literal(file.toString()) + " (FORMAT parquet, "
                    + "COMPRESSION " + parquet.compression().name().toLowerCase(Locale.ROOT)
                    + ", ROW_GROUP_SIZE_BYTES " + parquet.rowGroupBytes() + ")");
        } catch (SQLException e) {
            deleteAfterFailure(file, e);
            throw e;
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot create " + file.getParent(), e);
        }
        try (ResultSet stats = statement.executeQuery("SELECT count(*), min(_lsn), max(_lsn) FROM read_parquet("
                + literal(file.toString()) + ")")) {
            stats.next();
            long count = stats.getLong(1);
            if (count == 0) {
                Files.delete(file);
                return new CompactedTable(table.name(), table.columns(), table.files(), null, 0, 0, 0);
            }
            return new CompactedTable(table.name(), table.columns(), table.files(), file, count, stats.getLong(2),
                    stats.getLong(3));
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot remove the empty compaction file " + file, e);
        }
    }

    private static void deleteAfterFailure(Path file, SQLException failure) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException cleanup) {
            failure.addSuppressed(cleanup);
        }
    }
}
