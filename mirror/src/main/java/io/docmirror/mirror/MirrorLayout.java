package io.docmirror.mirror;

import io.docmirror.layout.DirectoryName;

import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where a mirror's files live:
 * <pre>
 * DATA/mirror/&lt;container&gt;/
 *   _manifest/v000000000042.json        the committed versions
 *   _schema/schema-000000000042.json    the flattener's schema as of a version
 *   _history/data-000000000042-0.parquet, _dead_letters/...
 *   &lt;table&gt;/data-000000000042-3.parquet  (file 3 of the commit of version 42)
 * </pre>
 */
public final class MirrorLayout {
    public static final String HISTORY_DIRECTORY = "_history";
    public static final String DEAD_LETTER_DIRECTORY = "_dead_letters";
    public static final String SCHEMA_DIRECTORY = "_schema";
    private static final Pattern VERSIONED_FILE = Pattern.compile("(?:data|schema)-(\\d{12})(?:-\\d+)?\\.(?:parquet|json)");

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

    static String dataFileName(long version, int file) {
        return String.format("data-%012d-%d.parquet", version, file);
    }

    static String schemaFilePath(long version) {
        return SCHEMA_DIRECTORY + "/" + String.format("schema-%012d.json", version);
    }

    /**
     * A table's directory: its name with anything but letters, digits, {@code _ . -} replaced, since table names
     * come from property names, and shortened as {@link DirectoryName} says when too long for a file name (a child
     * table's name is its parent's with a suffix). Two tables may share a directory; file names never collide within
     * a commit.
     */
    static String tableDirectory(String table) {
        String name = table.replaceAll("[^A-Za-z0-9_.-]", "_");
        return DirectoryName.of(name.startsWith("_") || name.startsWith(".") ? "t" + name : name).value();
    }

    /** The version a data or schema file was written for; -1 for any other file. */
    static long versionOf(Path file) {
        Matcher matcher = VERSIONED_FILE.matcher(file.getFileName().toString());
        return matcher.matches() ? Long.parseLong(matcher.group(1)) : -1;
    }
}
