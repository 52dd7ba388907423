package io.docmirror.layout;

import java.nio.file.Path;

/**
 * Where a mirror's files live in a data directory:
 * <pre>
 * DATA/mirror/catalog.db                          the embedded Iceberg catalog ({@link CatalogSettings})
 * DATA/mirror/warehouse/&lt;container&gt;/&lt;table&gt;/     each table's data and metadata files
 * DATA/mirror/&lt;container&gt;/                        the mirror's own state of a container: its writer's lock and
 *                                                 the readers' leases ({@link ReaderLeases})
 * DATA/mirror/_sql/                               the SQL endpoint's copy of the tables in DuckDB's own storage
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
     * Where the SQL endpoint keeps its copy of the mirror's tables. No container's directory can have this name: a
     * {@link DirectoryName} starts with a letter or digit.
     */
    public static Path servingCopyDirectory(Path mirrorDirectory) {
        return mirrorDirectory.resolve("_sql");
    }

    /**
     * A container's directory in the mirror directory: named after the container, unless its name is too long for a
     * file name or holds other characters than a container's may, as {@link DirectoryName} says.
     */
    public static Path containerDirectory(Path mirrorDirectory, String container) {
        return mirrorDirectory.resolve(DirectoryName.of(container).value());
    }
}
