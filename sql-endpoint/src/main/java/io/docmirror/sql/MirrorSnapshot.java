package io.docmirror.sql;

import io.docmirror.mirror.MirrorLayout;
import io.docmirror.mirror.manifest.Manifest;
import io.docmirror.mirror.manifest.ManifestStore;
import io.docmirror.mirror.manifest.ReaderLeases;

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
 * The newest committed manifest version of every mirrored container: what one generation of the SQL catalog shows.
 * It holds a reader's lease on each version ({@link ReaderLeases}), so that the mirror keeps the files the views read
 * until the snapshot is closed.
 *
 * @param manifests by container name
 */
record MirrorSnapshot(Path mirrorDirectory, Map<String, Manifest> manifests, List<ReaderLeases.Lease> leases)
        implements AutoCloseable {
    MirrorSnapshot {
        manifests = Collections.unmodifiableMap(new TreeMap<>(manifests));
        leases = List.copyOf(leases);
    }

    /** Reads the newest manifest of every container, and takes a lease on each. */
    static MirrorSnapshot read(Path mirrorDirectory) {
        Map<String, Manifest> manifests = new TreeMap<>();
        List<ReaderLeases.Lease> leases = new ArrayList<>();
        try {
            for (Path container : containerDirectories(mirrorDirectory)) {
                new ReaderLeases(container).holdNewest().ifPresent(held -> {
                    leases.add(held.lease());
                    manifests.put(held.manifest().container(), held.manifest());
                });
            }
        } catch (RuntimeException e) {
            leases.forEach(ReaderLeases.Lease::close);
            throw e;
        }
        return new MirrorSnapshot(mirrorDirectory, manifests, leases);
    }

    /** Lets the mirror remove what only these versions need. */
    @Override
    public void close() {
        leases.forEach(ReaderLeases.Lease::close);
    }

    /**
     * The newest version of every container, from directory listings only (no manifest is read): the cheap check
     * whether a snapshot is still current.
     */
    static Map<String, Long> currentVersions(Path mirrorDirectory) {
        Map<String, Long> versions = new TreeMap<>();
        for (Path container : containerDirectories(mirrorDirectory)) {
            List<Long> committed = new ManifestStore(container).versions();
            if (!committed.isEmpty()) {
                versions.put(container.getFileName().toString(), committed.get(committed.size() - 1));
            }
        }
        return versions;
    }

    /** The version of each container: two snapshots with the same versions show the same data. */
    Map<String, Long> versions() {
        Map<String, Long> versions = new TreeMap<>();
        manifests.forEach((container, manifest) -> versions.put(container, manifest.version()));
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
