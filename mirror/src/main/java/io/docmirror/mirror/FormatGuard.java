package io.docmirror.mirror;

import io.docmirror.layout.CatalogPointers;
import io.docmirror.layout.MirrorTables;
import io.docmirror.mirror.manifest.Manifest;
import io.docmirror.mirror.manifest.ManifestStore;

import java.nio.file.Path;
import java.util.Optional;

/**
 * Keeps a container mirrored in one format: a mirror in the other format is never converted, and a second mirror of
 * the same container beside it would serve two answers. The message says how to move a container to the other
 * format (mirror it again from a snapshot of the store).
 */
public final class FormatGuard {
    private FormatGuard() {
    }

    /**
     * @throws IllegalStateException when {@code mirrorDirectory} holds {@code container}'s mirror in the other
     *     format than {@code format}
     */
    public static void check(Path mirrorDirectory, String container, MirrorFormat format) {
        Path directory = MirrorLayout.containerDirectory(mirrorDirectory, container);
        switch (format) {
            case ICEBERG -> {
                Optional<Manifest> manifest = new ManifestStore(directory).latest();
                if (manifest.isPresent()) {
                    throw new IllegalStateException("Cannot mirror container " + container + " as Iceberg tables: "
                            + directory + " holds its mirror in the manifest format (version "
                            + manifest.get().version() + "), which is not converted. To move it, stop the mirror, "
                            + "remove " + directory + ", and run `docmirror backfill --container " + container
                            + "` with mirror.format: iceberg; or keep mirror.format: manifest");
                }
            }
            case MANIFEST -> {
                boolean tables = CatalogPointers.read(mirrorDirectory).locations().keySet().stream()
                        .anyMatch(table -> table.namespace().equals(MirrorTables.namespace(container)));
                if (tables) {
                    throw new IllegalStateException("Cannot mirror container " + container + " in the manifest "
                            + "format: the catalog of " + mirrorDirectory + " holds its mirror as Iceberg tables; "
                            + "run with mirror.format: iceberg");
                }
            }
        }
    }
}
