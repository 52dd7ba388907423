package io.docmirror.mirror;

import java.nio.file.Path;

/**
 * Mirrors made by docmirror before its tables became Iceberg tables kept their versions in a {@code _manifest}
 * directory of the container's directory. They are not read and not converted: the container is mirrored again from
 * a snapshot of the store, and the message says how ({@link io.docmirror.layout.EarlierLayout}, which the SQL
 * endpoint and {@code status} read too).
 */
public final class EarlierLayout {
    private EarlierLayout() {
    }

    /** @throws IllegalStateException when {@code mirrorDirectory} holds {@code container}'s mirror in the earlier format */
    public static void refuse(Path mirrorDirectory, String container) {
        io.docmirror.layout.EarlierLayout.refuse(mirrorDirectory, container);
    }
}
