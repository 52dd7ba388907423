package io.docmirror.sql;

import io.docmirror.layout.CatalogPointers;
import io.docmirror.layout.CatalogReader;
import io.docmirror.layout.ContainerSnapshot;
import io.docmirror.layout.EarlierLayout;
import io.docmirror.layout.MirrorLayout;
import io.docmirror.layout.ReaderLeases;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What the SQL catalog shows after one look at the mirror: every mirrored container at the snapshots one read of the catalog's
 * pointers found ({@link CatalogReader}), each held with a reader's lease on its batch ({@link ReaderLeases}), so
 * that the mirror expires none of the snapshots the views read until this is closed. From the embedded catalog the
 * read is one query, so every container is at the batch it had at one moment; from a REST catalog each container is
 * at one batch, and containers are read one after another.
 *
 * @param readableDirectories where the views' files are: the mirror directory, and the catalog's warehouse when it
 *     is elsewhere
 * @param containers by container name
 * @param commits what {@link #currentCommits} said when the snapshot was read: two equal maps show the same data
 */
record MirrorSnapshot(List<Path> readableDirectories, Map<String, MirroredContainer> containers,
        Map<String, String> commits, List<ReaderLeases.Lease> leases) implements AutoCloseable {
    MirrorSnapshot {
        readableDirectories = List.copyOf(readableDirectories);
        containers = Collections.unmodifiableMap(new TreeMap<>(containers));
        commits = Map.copyOf(commits);
        leases = List.copyOf(leases);
    }

    /**
     * Reads the newest commit of every container, and takes a lease on each one's batch.
     *
     * @throws IllegalStateException when a container is mirrored in the manifest format of earlier versions, which
     *     the endpoint does not read: it says how to mirror the container again ({@link EarlierLayout})
     */
    static MirrorSnapshot read(Path mirrorDirectory, CatalogReader catalog) {
        EarlierLayout.refuseAny(mirrorDirectory, "The SQL endpoint");
        Map<String, MirroredContainer> containers = new TreeMap<>();
        Map<String, String> commits = new TreeMap<>();
        List<ReaderLeases.Lease> leases = new ArrayList<>();
        List<Path> readable = readableDirectories(mirrorDirectory, catalog);
        try {
            CatalogPointers pointers = catalog.pointers();
            commits(pointers).forEach((container, commit) -> ContainerSnapshot.of(container,
                    pointers.tables(Namespace.of(container)), catalog.workers()).ifPresent(found -> {
                        MirroredContainer mirrored = new MirroredContainer(found);
                        // The mirror expires no snapshot a lease holds (and none younger than keep-ms, which covers
                        // the moment between reading the pointers and taking the lease).
                        leases.add(new ReaderLeases(MirrorLayout.containerDirectory(mirrorDirectory, container))
                                .take(mirrored.version()));
                        containers.put(container, mirrored);
                        commits.put(container, commit);
                    }));
        } catch (RuntimeException e) {
            leases.forEach(ReaderLeases.Lease::close);
            throw e;
        }
        return new MirrorSnapshot(readable, containers, commits, leases);
    }

    /** Where the tables' files are: the mirror directory, and the catalog's warehouse when it is elsewhere. */
    static List<Path> readableDirectories(Path mirrorDirectory, CatalogReader catalog) {
        List<Path> readable = new ArrayList<>(List.of(mirrorDirectory));
        catalog.settings().localWarehouse().filter(warehouse -> !warehouse.startsWith(mirrorDirectory))
                .ifPresent(readable::add);
        return readable;
    }

    /** Lets the mirror remove what only these batches need. */
    @Override
    public void close() {
        leases.forEach(ReaderLeases.Lease::close);
    }

    /**
     * Where every container is now: the cheap check whether a snapshot is still current. From the embedded catalog
     * one query, no table metadata read; from a REST catalog, every table loaded.
     */
    static Map<String, String> currentCommits(CatalogReader catalog) {
        return commits(catalog.pointers());
    }

    /** Each container's commit: its tables' metadata locations, which every commit moves. */
    private static Map<String, String> commits(CatalogPointers pointers) {
        Map<String, String> commits = new TreeMap<>();
        for (Map.Entry<TableIdentifier, String> pointer : pointers.locations().entrySet()) {
            commits.merge(pointer.getKey().namespace().level(0), pointer.getValue(), (a, b) -> a + "\n" + b);
        }
        return commits;
    }

    /** The batch of each container. */
    Map<String, Long> versions() {
        Map<String, Long> versions = new TreeMap<>();
        containers.forEach((container, mirrored) -> versions.put(container, mirrored.version()));
        return versions;
    }
}
