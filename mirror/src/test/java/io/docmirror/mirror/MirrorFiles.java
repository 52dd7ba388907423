package io.docmirror.mirror;

import io.docmirror.layout.CatalogPointers;
import io.docmirror.layout.CatalogSettings;
import io.docmirror.layout.ContainerSnapshot;
import io.docmirror.layout.LocalFileIO;
import io.docmirror.layout.MirrorSummary;
import io.docmirror.layout.MirrorTables;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** A container's mirror as committed: its tables now, the Parquet files on disk and those the snapshots list. */
public final class MirrorFiles {
    private MirrorFiles() {
    }

    /** The container's tables at their newest commit. */
    static ContainerSnapshot latest(Path mirrorDirectory, String container) {
        return ContainerSnapshot.read(mirrorDirectory, container).orElseThrow(
                () -> new IllegalStateException("No mirror of " + container + " in " + mirrorDirectory));
    }

    /** The number of the mirror's newest commit of {@code container}. */
    static long batch(Path mirrorDirectory, String container) {
        return Long.parseLong(latest(mirrorDirectory, container).rootSnapshot().summary().get(MirrorSummary.BATCH));
    }

    /** The live data files of one of the container's tables (its newest snapshot's, deleted rows or not). */
    static List<String> dataFiles(Path mirrorDirectory, String container, String table) {
        return latest(mirrorDirectory, container).tables().stream().filter(found -> found.name().equals(table))
                .findFirst().orElseThrow().view().dataFiles();
    }

    /**
     * The live data files of any of the container's tables, the history and the dead letters included, as its newest
     * snapshot records them (location, size, row count, column bounds); empty when the table has no snapshot.
     */
    static List<DataFile> liveFiles(Path mirrorDirectory, String container, String table) {
        Table found = CatalogPointers.read(mirrorDirectory).tables(MirrorTables.namespace(container)).get(table);
        if (found == null) {
            throw new IllegalStateException("The mirror of " + container + " has no table " + table);
        }
        List<DataFile> files = new ArrayList<>();
        if (found.currentSnapshot() == null) {
            return files;
        }
        try (CloseableIterable<FileScanTask> tasks = found.newScan().includeColumnStats().planFiles()) {
            tasks.forEach(task -> files.add(task.file().copy()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return files;
    }

    /** Every Parquet file under the container's folder of the warehouse, as a location. */
    public static Set<String> parquetFiles(Path mirrorDirectory, String container) {
        Path folder = LocalFileIO.pathOf(MirrorTables.containerLocation(
                CatalogSettings.embedded(mirrorDirectory).warehouse(), container));
        if (!Files.isDirectory(folder)) {
            return Set.of();
        }
        try (Stream<Path> files = Files.walk(folder)) {
            return files.filter(file -> file.toString().endsWith(".parquet"))
                    .map(file -> file.toUri().toString()).collect(Collectors.toSet());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The data files the newest snapshot of each of the container's tables removed (a compaction's rewrite, say), as
     * locations: Iceberg deletes them when that snapshot expires, not before.
     */
    static Set<String> removedByLatest(Path mirrorDirectory, String container) {
        Set<String> removed = new HashSet<>();
        Map<String, Table> tables = CatalogPointers.read(mirrorDirectory).tables(MirrorTables.namespace(container));
        for (Table table : tables.values()) {
            if (table.currentSnapshot() != null) {
                table.currentSnapshot().removedDataFiles(table.io()).forEach(file -> removed.add(
                        LocalFileIO.pathOf(file.location()).toUri().toString()));
            }
        }
        return removed;
    }

    /** Every data file some kept snapshot of one of the container's tables lists, as a location. */
    public static Set<String> listed(Path mirrorDirectory, String container) {
        Set<String> listed = new HashSet<>();
        Map<String, Table> tables = CatalogPointers.read(mirrorDirectory).tables(MirrorTables.namespace(container));
        for (Table table : tables.values()) {
            List<Snapshot> snapshots = new ArrayList<>();
            table.snapshots().forEach(snapshots::add);
            for (Snapshot snapshot : snapshots) {
                try (CloseableIterable<FileScanTask> tasks = table.newScan().useSnapshot(snapshot.snapshotId())
                        .planFiles()) {
                    tasks.forEach(task -> listed.add(LocalFileIO.pathOf(task.file().location()).toUri().toString()));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        }
        return listed;
    }
}
