package io.docmirror.layout;

import java.nio.file.Path;

/**
 * Where a mirror's files live in a data directory:
 * <pre>
 * DATA/mirror/catalog.db                          the embedded Iceberg catalog ({@link CatalogSettings})
 * DATA/mirror/warehouse/&lt;container&gt;/&lt;table&gt;/     each table's data and metadata files
 * DATA/mirror/&lt;container&gt;/                        the mirror's own state of a container: its writer's lock and
 *                                                 the readers' leases ({@link ReaderLeases})
 * </pre>
 */
public final class MirrorLayout {
    private MirrorLayout() {
    }

    /** The mirror directory of a data directory. */
    public static Path mirrorDirectory(Path dataDirectory) {
        return dataDirectory.resolve("mirror");
    }

    /**
     * A container's directory in the mirror directory: named after the container, unless its name is too long for a
     * file name or holds other characters than a container's may, as {@link DirectoryName} says.
     */
    public static Path containerDirectory(Path mirrorDirectory, String container) {
        return mirrorDirectory.resolve(DirectoryName.of(container).value());
    }
}
