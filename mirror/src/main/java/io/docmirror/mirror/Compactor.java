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
import java.util.stream.Collectors;

import static io.docmirror.mirror.manifest.ViewDefinitions.literal;
import static java.util.Objects.requireNonNull;

/**
 * Folds every table of one committed manifest version into one base file per table that holds just its current
 * rows: of each key the newest version unless it is deleted, without rows past the analytical TTL, and for a child
 * table the rows of its documents' current versions. The query is the views' own ({@link ViewDefinitions}), run by
 * DuckDB, so a compacted version answers every query as the version it replaces does. Files are written under
 * temporary names; {@link ContainerMirror#commitCompaction} renames them and commits them as a new version, in
 * which newer delta files stay on top of the base. The same compaction merges the small files of the history and the
 * dead letters, which keep every row, so that neither they nor the manifests that list them grow with each commit.
 */
final class Compactor {
    /** Temporary files of a compaction in progress start with this; a crash leaves them, the next open removes them. */
    static final String TEMPORARY_PREFIX = ".compact-";
    /** History and dead-letter files below this size are merged at each compaction. */
    static final long SMALL_LOG_FILE_BYTES = 16L << 20;

    private final Path containerDirectory;
    private final ParquetOptions parquet;

    /**
     * One table's new base file (none when no row is current), and the files it replaces.
     *
     * @param directory the folder the file goes to, relative to the container's mirror directory
     * @param columns the table's columns as the file holds them: those of the compacted version (empty for the
     *     history and the dead letters, whose columns never change)
     */
    record CompactedTable(String table, String directory, List<ColumnEntry> columns, List<DataFile> replaced,
            Path temporaryFile, long rows, long minLsn, long maxLsn) {
        CompactedTable {
            columns = List.copyOf(columns);
            replaced = List.copyOf(replaced);
        }

        boolean isEmpty() {
            return temporaryFile == null;
        }
    }

    /**
     * A compaction of manifest version {@code snapshotVersion}, ready to commit.
     *
     * @param history the history's small files merged into one; {@code null} when there were not enough to merge
     * @param deadLetters the same for the dead letters
     */
    record Compaction(long snapshotVersion, List<CompactedTable> tables, CompactedTable history,
            CompactedTable deadLetters) {
        Compaction {
            tables = List.copyOf(tables);
        }

        /** Removes the temporary files of a compaction that will not be committed. */
        void discard() {
            List<CompactedTable> all = new ArrayList<>(tables);
            if (history != null) {
                all.add(history);
            }
            if (deadLetters != null) {
                all.add(deadLetters);
            }
            for (CompactedTable table : all) {
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
        List<CompactedTable> tables = new ArrayList<>();
        CompactedTable history = null;
        CompactedTable deadLetters = null;
        List<Path> normalized = new ArrayList<>();
        try (Connection connection = BackgroundDuckDb.connect();
                Statement statement = connection.createStatement()) {
            statement.execute("SET preserve_insertion_order = false");
            Manifest readable = inOneTypeGroup(statement, snapshot, normalized);
            ViewDefinitions views = new ViewDefinitions(readable, containerDirectory,
                    OptionalLong.of(nowEpochSeconds));
            String rootRows = "(" + views.currentRows(readable.root(), null) + ")";
            for (int index = 0; index < snapshot.tables().size(); index++) {
                TableEntry table = snapshot.tables().get(index);
                if (table.files().isEmpty()) {
                    continue;
                }
                String order = table.isRoot() ? "_pk, id" : "_pk, _id, _idx";
                String rows = views.currentRows(readable.tables().get(index), rootRows) + " ORDER BY " + order;
                tables.add(write(statement, snapshot.version(), tables.size(), table.name(),
                        MirrorLayout.tableDirectory(table.name()), table.columns(), table.files(), rows));
            }
            history = mergeSmallFiles(statement, snapshot, tables.size(), MirrorLayout.HISTORY_DIRECTORY,
                    snapshot.history());
            deadLetters = mergeSmallFiles(statement, snapshot, tables.size() + 1,
                    MirrorLayout.DEAD_LETTER_DIRECTORY, snapshot.deadLetters());
        } catch (SQLException e) {
            new Compaction(snapshot.version(), tables, history, deadLetters).discard();
            throw new IllegalStateException("Cannot compact version " + snapshot.version() + " of the mirror of "
                    + snapshot.container() + ": " + e.getMessage(), e);
        } finally {
            deleteAll(normalized);
        }
        return new Compaction(snapshot.version(), tables, history, deadLetters);
    }

    /**
     * {@code snapshot} with each table's files of one kind brought to one group of types: when files hold number
     * columns in several narrower types (a column that widened from commit to commit), each group of files is copied,
     * converted exactly, into a temporary file of the table's current types. The views could read the groups as they
     * are, one read per group, but a compaction query over a few hundred of them (a table whose schema grew with
     * nearly every document) ran out of memory.
     *
     * @param written where the temporary files are listed, to be removed when the compaction is done
     */
    private Manifest inOneTypeGroup(Statement statement, Manifest snapshot, List<Path> written) throws SQLException {
        ViewDefinitions views = new ViewDefinitions(snapshot, containerDirectory, OptionalLong.empty());
        List<TableEntry> tables = new ArrayList<>();
        for (TableEntry table : snapshot.tables()) {
            List<DataFile> files = new ArrayList<>();
            for (DataFile.Kind kind : DataFile.Kind.values()) {
                List<DataFile> ofKind = table.files().stream().filter(file -> file.kind() == kind).toList();
                List<List<DataFile>> groups = ViewDefinitions.typeGroupsOf(table, ofKind);
                if (groups.size() <= 1) {
                    files.addAll(ofKind);
                    continue;
                }
                for (List<DataFile> group : groups) {
                    String path = MirrorLayout.tableDirectory(table.name()) + "/" + TEMPORARY_PREFIX + "group-"
                            + UUID.randomUUID() + ".parquet";
                    written.add(containerDirectory.resolve(path));
                    statement.execute("COPY (" + views.readTypeGroup(table, group) + ") TO "
                            + literal(containerDirectory.resolve(path).toString()) + " (FORMAT parquet)");
                    files.add(new DataFile(path, kind, 0, 0, 0, 0).withNumberTypesOf(table.columns()));
                }
            }
            tables.add(new TableEntry(table.name(), table.parent(), table.jsonPath(), table.columns(), files));
        }
        return snapshot.withTables(tables);
    }

    private static void deleteAll(List<Path> files) {
        for (Path file : files) {
            try {
                Files.deleteIfExists(file);
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot remove the temporary compaction file " + file, e);
            }
        }
    }

    /**
     * Merges the files of a log (the history, the dead letters: every row stays) that are smaller than
     * {@link #SMALL_LOG_FILE_BYTES} into one, in LSN order, when there are at least two; {@code null} otherwise. Each
     * commit adds a small file to a log, so without this a log, and every manifest that lists its files, would grow
     * by one file per commit; with it, a log has at most a few small files beside files of about that size.
     */
    private CompactedTable mergeSmallFiles(Statement statement, Manifest snapshot, int index, String directory,
            List<DataFile> files) throws SQLException {
        List<DataFile> small = files.stream().filter(file -> file.bytes() < SMALL_LOG_FILE_BYTES).toList();
        if (small.size() < 2) {
            return null;
        }
        String rows = "SELECT * FROM " + small.stream()
                .map(file -> literal(containerDirectory.resolve(file.path()).toString()))
                .collect(Collectors.joining(", ", "read_parquet([", "], union_by_name = true)")) + " ORDER BY _lsn";
        return write(statement, snapshot.version(), index, directory, directory, List.of(), small, rows);
    }

    private CompactedTable write(Statement statement, long snapshotVersion, int index, String table, String directory,
            List<ColumnEntry> columns, List<DataFile> replaced, String rows) throws SQLException {
        // Unique, so that a compaction abandoned by a closed mirror can never write over a later one's file.
        Path file = containerDirectory.resolve(directory).resolve(TEMPORARY_PREFIX
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
                return new CompactedTable(table, directory, columns, replaced, null, 0, 0, 0);
            }
            return new CompactedTable(table, directory, columns, replaced, file, count, stats.getLong(2),
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
