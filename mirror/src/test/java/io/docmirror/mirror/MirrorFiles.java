package io.docmirror.mirror;

import io.docmirror.mirror.manifest.DataFile;
import io.docmirror.mirror.manifest.Manifest;
import io.docmirror.mirror.manifest.ManifestStore;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/** A container's mirror as committed: its newest version, the Parquet files on disk and those kept versions list. */
final class MirrorFiles {
    private MirrorFiles() {
    }

    /** The newest committed version of a container's mirror. */
    static Manifest latest(Path mirrorDirectory, String container) {
        return new ManifestStore(mirrorDirectory.resolve(container)).latest().orElseThrow();
    }

    /** Every Parquet file under the container's mirror directory, relative to it. */
    static Set<String> parquetFiles(Path containerDirectory) throws IOException {
        try (Stream<Path> files = Files.walk(containerDirectory, 2)) {
            return files.filter(file -> file.toString().endsWith(".parquet"))
                    .map(file -> containerDirectory.relativize(file).toString())
                    .collect(Collectors.toSet());
        }
    }

    /** Every file some kept manifest version lists. */
    static Set<String> listed(Path containerDirectory) {
        ManifestStore manifests = new ManifestStore(containerDirectory);
        Set<String> listed = new HashSet<>();
        for (long version : manifests.versions()) {
            manifests.read(version).dataFiles().stream().map(DataFile::path).forEach(listed::add);
        }
        return listed;
    }
}
