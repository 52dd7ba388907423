package io.docmirror.mirror.iceberg;

import io.docmirror.layout.CatalogSettings;
import io.docmirror.layout.LocalFileIO;
import io.docmirror.layout.MirrorSummary;
import io.docmirror.layout.MirrorTables;
import io.docmirror.mirror.MirrorConfig;
import io.docmirror.layout.ReaderLeases;
import io.docmirror.mirror.MirrorErrorCode;
import io.docmirror.mirror.MirrorException;
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
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.SupportsPrefixOperations;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

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
     * @param io the catalog's file access: the warehouse is listed and cleaned through it, local or an object store
     * @param readers the leases readers hold on the container's batches
     * @return whether it looked: false while a reader holds a lease
     */
    static boolean removeUnder(Catalog catalog, FileIO io, CatalogSettings settings, String container,
            ReaderLeases readers, MirrorConfig config) {
        if (readers.oldestHeld().isPresent()) {
            return false;
        }
        List<Table> tables = new ArrayList<>();
        for (TableIdentifier identifier : catalog.listTables(MirrorTables.namespace(container))) {
            tables.add(catalog.loadTable(identifier));
        }
        remove(io, MirrorTables.containerLocation(settings.warehouse(), container), tables,
                System.currentTimeMillis() - config.keepSnapshotsFor().toMillis());
        return true;
    }

    /**
     * Deletes the files under {@code containerLocation} that none of {@code tables} reaches and that were last
     * written before {@code olderThanMillis}; returns how many.
     */
    static int remove(FileIO io, String containerLocation, Collection<Table> tables, long olderThanMillis) {
        if (!(io instanceof SupportsPrefixOperations prefixes)) {
            throw new MirrorException(MirrorErrorCode.REFUSED_CONFIGURATION,
                    "Cannot look for orphan files under " + containerLocation + ": its "
                    + "file access " + io.getClass().getName() + " cannot list a prefix");
        }
        Set<String> reachable = new HashSet<>();
        for (Table table : tables) {
            reachable(table).forEach(location -> reachable.add(comparable(location)));
        }
        List<String> orphans = new ArrayList<>();
        // The trailing slash: an object store lists by key prefix, and "orders" would take in "orders2" too.
        for (FileInfo file : prefixes.listPrefix(containerLocation + "/")) {
            // A key ending in "/" is a folder's placeholder, which some S3-compatible services list (S3Proxy's
            // file-system store lists each folder so) and no table writes: not a file, and S3Proxy answers its
            // delete only when the request's idle timeout ends.
            if (!file.location().endsWith("/") && !reachable.contains(checkedFile(comparable(file.location())))
                    && file.createdAtMillis() < olderThanMillis) {
                orphans.add(file.location());
            }
        }
        if (!orphans.isEmpty()) {
            // One request a file, not S3's DeleteObjects: a crash leaves few files, and S3-compatible services that
            // predate S3's flexible checksums (S3Proxy among them) refuse the checksum the SDK sends with it.
            orphans.forEach(io::deleteFile);
            log.info("Removed {} file(s) under {} that no table reaches (left by a crash or a dropped table)",
                    orphans.size(), containerLocation);
        }
        return orphans.size();
    }

    /**
     * A location as it can be compared with others: a local one as its normalised path (a table's metadata may say
     * {@code file:/x}, a listing {@code file:///x}), an object store's as it is.
     */
    private static String comparable(String location) {
        return LocalFileIO.isLocal(location)
                ? LocalFileIO.pathOf(location).normalize().toString()
                : location;
    }

    /**
     * The file a Hadoop checksum file ({@code .<name>.crc}) checks, or the file itself. Hadoop's local file system
     * writes one beside every file, so a REST catalog server on it leaves one beside each metadata file it writes:
     * it is reachable when the file it checks is.
     */
    private static String checkedFile(String location) {
        int slash = location.lastIndexOf('/');
        String name = location.substring(slash + 1);
        return name.startsWith(".") && name.endsWith(".crc")
                ? location.substring(0, slash + 1) + name.substring(1, name.length() - ".crc".length())
                : location;
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
