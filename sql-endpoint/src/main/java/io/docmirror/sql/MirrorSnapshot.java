package io.docmirror.sql;

import io.docmirror.mirror.MirrorLayout;
import io.docmirror.mirror.manifest.Manifest;
import io.docmirror.mirror.manifest.ManifestStore;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The newest committed manifest version of every mirrored container: what one generation of the SQL catalog shows.
 *
 * @param manifests by container name
 */
record MirrorSnapshot(Path mirrorDirectory, Map<String, Manifest> manifests) {
    MirrorSnapshot {
        manifests = Collections.unmodifiableMap(new TreeMap<>(manifests));
    }

    /** Reads the newest manifest of every container. */
    static MirrorSnapshot read(Path mirrorDirectory) {
        Map<String, Manifest> manifests = new TreeMap<>();
        for (Path container : containerDirectories(mirrorDirectory)) {
            new ManifestStore(container).latest().ifPresent(manifest -> manifests.put(manifest.container(), manifest));
        }
        return new MirrorSnapshot(mirrorDirectory, manifests);
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
