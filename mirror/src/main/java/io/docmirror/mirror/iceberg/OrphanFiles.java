package io.docmirror.mirror.iceberg;

import io.docmirror.layout.CatalogSettings;
import io.docmirror.layout.LocalFileIO;
import io.docmirror.layout.MirrorSummary;
import io.docmirror.layout.MirrorTables;
import io.docmirror.mirror.MirrorConfig;
import io.docmirror.layout.ReaderLeases;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.ManifestContent;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.ReachableFileUtil;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.CloseableIterable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The files under a container's warehouse folder that no table of the catalog reaches any more: what a crash left
 * (the data files, deletion vectors and metadata of a batch that never committed) and the files of tables a rebuild
 * dropped. Iceberg's snapshot expiry deletes what expired snapshots alone needed; these it never saw.
 *
 * <p>Reachable: every table's metadata files (current and logged), manifest lists, statistics, each retained
 * snapshot's manifests with the data files and deletion vectors they list, and the flattener schemas the snapshots'
 * summaries name.
 */
final class OrphanFiles {
    private static final Logger log = LoggerFactory.getLogger(OrphanFiles.class);

    private OrphanFiles() {
    }

    /**
     * Removes what a crash left under a container's warehouse folder, older than {@code mirror.snapshots.keep-ms};
     * not while a reader holds a lease, as it may read a table a rebuild dropped.
     *
     * @param directory the container's mirror directory, where readers take their leases
     */
    static void removeUnder(Catalog catalog, CatalogSettings settings, String container, Path directory,
            MirrorConfig config) {
        if (new ReaderLeases(directory).oldestHeld().isPresent()) {
            return;
        }
        List<Table> tables = new ArrayList<>();
        for (TableIdentifier identifier : catalog.listTables(MirrorTables.namespace(container))) {
            tables.add(catalog.loadTable(identifier));
        }
        remove(LocalFileIO.pathOf(MirrorTables.containerLocation(settings.warehouse(), container)), tables,
                System.currentTimeMillis() - config.keepSnapshotsFor().toMillis());
    }

    /**
     * Deletes the files under {@code containerFolder} that none of {@code tables} reaches and that were last written
     * before {@code olderThanMillis}; returns how many.
     */
    static int remove(Path containerFolder, Collection<Table> tables, long olderThanMillis) {
        if (!Files.isDirectory(containerFolder)) {
            return 0;
        }
        Set<Path> reachable = new HashSet<>();
        for (Table table : tables) {
            reachable(table).forEach(location -> reachable.add(LocalFileIO.pathOf(location).normalize()));
        }
        List<Path> orphans = new ArrayList<>();
        try (Stream<Path> files = Files.walk(containerFolder)) {
            for (Path file : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
                if (!reachable.contains(checkedFile(file.toAbsolutePath().normalize()))
                        && Files.getLastModifiedTime(file).toMillis() < olderThanMillis) {
                    orphans.add(file);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot list the files of " + containerFolder, e);
        }
        for (Path orphan : orphans) {
            try {
                Files.deleteIfExists(orphan);
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot remove the orphan file " + orphan, e);
            }
        }
        if (!orphans.isEmpty()) {
            log.info("Removed {} file(s) under {} that no table reaches (left by a crash or a dropped table)",
                    orphans.size(), containerFolder);
        }
        return orphans.size();
    }

    /**
     * The file a Hadoop checksum file ({@code .<name>.crc}) checks, or the file itself. Hadoop's local file system
     * writes one beside every file, so a REST catalog server on it leaves one beside each metadata file it writes:
     * it is reachable when the file it checks is.
     */
    private static Path checkedFile(Path file) {
        String name = file.getFileName().toString();
        return name.startsWith(".") && name.endsWith(".crc")
                ? file.resolveSibling(name.substring(1, name.length() - ".crc".length()))
                : file;
    }

    private static Set<String> reachable(Table table) {
        Set<String> locations = new HashSet<>(ReachableFileUtil.metadataFileLocations(table, true));
        locations.addAll(ReachableFileUtil.manifestListLocations(table));
        locations.addAll(ReachableFileUtil.statisticsFilesLocations(table));
        Set<String> manifests = new HashSet<>();
        for (Snapshot snapshot : table.snapshots()) {
            String schema = snapshot.summary().get(MirrorSummary.FLATTENER_SCHEMA);
            if (schema != null) {
                locations.add(schema);
            }
            for (ManifestFile manifest : snapshot.allManifests(table.io())) {
                if (manifests.add(manifest.path())) {
                    locations.add(manifest.path());
                    locations.addAll(filesOf(table, manifest));
                }
            }
        }
        return locations;
    }

    private static List<String> filesOf(Table table, ManifestFile manifest) {
        List<String> files = new ArrayList<>();
        try {
            if (manifest.content() == ManifestContent.DATA) {
                try (CloseableIterable<String> paths = ManifestFiles.readPaths(manifest, table.io(), table.specs())) {
                    paths.forEach(files::add);
                }
            } else {
                try (ManifestReader<DeleteFile> reader = ManifestFiles.readDeleteManifest(manifest, table.io(),
                        table.specs())) {
                    reader.forEach(vector -> files.add(vector.location()));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read the manifest " + manifest.path() + " of " + table.name(), e);
        }
        return files;
    }
}
