package io.docmirror.sql;

import io.docmirror.layout.CatalogPointers;
import io.docmirror.layout.ContainerSnapshot;
import io.docmirror.layout.LocalFileIO;
import io.docmirror.mirror.MirrorLayout;
import io.docmirror.mirror.manifest.ManifestStore;
import io.docmirror.mirror.manifest.ReaderLeases;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * What one generation of the SQL catalog shows: every mirrored container at its newest commit, in whichever format
 * the mirror keeps it. A container in the manifest format is held with a reader's lease on its version
 * ({@link ReaderLeases}), so that the mirror keeps the files the views read until the snapshot is closed; one in the
 * Iceberg format is read at the snapshots one read of the catalog's pointers found ({@link CatalogPointers}).
 *
 * @param containers by container name
 * @param commits what {@link #currentCommits} said when the snapshot was read: two equal maps show the same data
 */
record MirrorSnapshot(Path mirrorDirectory, Map<String, MirroredContainer> containers, Map<String, String> commits,
        List<ReaderLeases.Lease> leases) implements AutoCloseable {
    MirrorSnapshot {
        containers = Collections.unmodifiableMap(new TreeMap<>(containers));
        commits = Map.copyOf(commits);
        leases = List.copyOf(leases);
    }

    /** Reads the newest commit of every container, and takes a lease on each manifest version. */
    static MirrorSnapshot read(Path mirrorDirectory) {
        Map<String, MirroredContainer> containers = new TreeMap<>();
        Map<String, String> commits = new TreeMap<>();
        List<ReaderLeases.Lease> leases = new ArrayList<>();
        try {
            for (Path container : containerDirectories(mirrorDirectory)) {
                new ReaderLeases(container).holdNewest().ifPresent(held -> {
                    leases.add(held.lease());
                    containers.put(held.manifest().container(), new ManifestContainer(held.manifest(), container));
                    commits.put(container.getFileName().toString(), "version " + held.manifest().version());
                });
            }
            CatalogPointers pointers = CatalogPointers.read(mirrorDirectory);
            LocalFileIO io = new LocalFileIO();
            icebergCommits(pointers).forEach((container, commit) -> ContainerSnapshot.of(container,
                    pointers.tables(Namespace.of(container), io)).ifPresent(found -> {
                        IcebergContainer iceberg = new IcebergContainer(found);
                        // The mirror expires no snapshot a lease holds (and none younger than keep-ms, which covers
                        // the moment between reading the pointers and taking the lease).
                        leases.add(new ReaderLeases(MirrorLayout.containerDirectory(mirrorDirectory, container))
                                .take(iceberg.version()));
                        containers.put(container, iceberg);
                        commits.put(container, commit);
                    }));
        } catch (RuntimeException e) {
            leases.forEach(ReaderLeases.Lease::close);
            throw e;
        }
        return new MirrorSnapshot(mirrorDirectory, containers, commits, leases);
    }

    /** Lets the mirror remove what only these versions need. */
    @Override
    public void close() {
        leases.forEach(ReaderLeases.Lease::close);
    }

    /**
     * Where every container is now, from directory listings and one query of the Iceberg catalog (no manifest or
     * table metadata is read): the cheap check whether a snapshot is still current.
     */
    static Map<String, String> currentCommits(Path mirrorDirectory) {
        Map<String, String> commits = new TreeMap<>();
        for (Path container : containerDirectories(mirrorDirectory)) {
            List<Long> committed = new ManifestStore(container).versions();
            if (!committed.isEmpty()) {
                commits.put(container.getFileName().toString(), "version " + committed.get(committed.size() - 1));
            }
        }
        commits.putAll(icebergCommits(CatalogPointers.read(mirrorDirectory)));
        return commits;
    }

    /** Each Iceberg container's commit: its tables' metadata locations, which every commit moves. */
    private static Map<String, String> icebergCommits(CatalogPointers pointers) {
        Map<String, String> commits = new TreeMap<>();
        for (Map.Entry<TableIdentifier, String> pointer : pointers.locations().entrySet()) {
            commits.merge(pointer.getKey().namespace().level(0), pointer.getValue(), (a, b) -> a + "\n" + b);
        }
        return commits;
    }

    /** The commit (manifest version or Iceberg batch) of each container. */
    Map<String, Long> versions() {
        Map<String, Long> versions = new TreeMap<>();
        containers.forEach((container, mirrored) -> versions.put(container, mirrored.version()));
        return versions;
    }

    Path containerDirectory(String container) {
        return MirrorLayout.containerDirectory(mirrorDirectory, container);
    }

    private static List<Path> containerDirectories(Path mirrorDirectory) {
        if (!Files.isDirectory(mirrorDirectory)) {
            return List.of();
        }
        try (Stream<Path> entries = Files.list(mirrorDirectory)) {
            return entries.filter(Files::isDirectory).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot list the mirrored containers in " + mirrorDirectory, e);
        }
    }
}
