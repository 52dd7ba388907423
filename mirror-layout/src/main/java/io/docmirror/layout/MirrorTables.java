package io.docmirror.layout;

import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * The names of a container's Iceberg tables and where their files go.
 *
 * <p>Each container is a namespace named after it. In it: the root table and each child table under the flattener's
 * names ({@code orders}, {@code orders__items}), the change history {@code <root>_history} and the documents that
 * could not be mirrored, {@code <root>_dead_letters}. A child table's name always has a double underscore after the
 * root's name, so the two log tables never meet a flattened one. Table files go under
 * {@code <warehouse>/<container>/<table>/}, each folder named as {@link DirectoryName} says.
 */
public final class MirrorTables {
    private MirrorTables() {
    }

    public static Namespace namespace(String container) {
        return Namespace.of(container);
    }

    public static TableIdentifier table(String container, String table) {
        return TableIdentifier.of(namespace(container), table);
    }

    public static String history(String rootTable) {
        return rootTable + "_history";
    }

    public static String deadLetters(String rootTable) {
        return rootTable + "_dead_letters";
    }

    /** Where a container's files go in {@code warehouse} (a location, such as a {@code file:} URI). */
    public static String containerLocation(String warehouse, String container) {
        return stripSlash(warehouse) + "/" + DirectoryName.of(container).value();
    }

    /** Where a table's files go in {@code warehouse}. */
    public static String tableLocation(String warehouse, String container, String table) {
        return containerLocation(warehouse, container) + "/" + DirectoryName.of(table).value();
    }

    private static String stripSlash(String location) {
        return location.endsWith("/") ? location.substring(0, location.length() - 1) : location;
    }
}
