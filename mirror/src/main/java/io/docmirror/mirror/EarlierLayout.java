package io.docmirror.mirror;

import io.docmirror.layout.MirrorLayout;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Mirrors made by docmirror before its tables became Iceberg tables kept their versions in a {@code _manifest}
 * directory of the container's directory. They are not read and not converted: the container is mirrored again from
 * a snapshot of the store, and the message says how.
 */
public final class EarlierLayout {
    /** Where the earlier format kept its committed versions. */
    private static final String MANIFEST_DIRECTORY = "_manifest";

    private EarlierLayout() {
    }

    /** @throws IllegalStateException when {@code mirrorDirectory} holds {@code container}'s mirror in the earlier format */
    public static void refuse(Path mirrorDirectory, String container) {
        Path directory = MirrorLayout.containerDirectory(mirrorDirectory, container);
        if (Files.isDirectory(directory.resolve(MANIFEST_DIRECTORY))) {
            throw new IllegalStateException("Cannot mirror container " + container + ": " + directory + " holds its "
                    + "mirror in the manifest format of earlier docmirror versions, which this version neither reads "
                    + "nor converts. Stop the mirror, remove " + directory + ", and run `docmirror backfill "
                    + "--container " + container + "` to mirror it again as Iceberg tables");
        }
    }
}
