package io.docmirror.flatten;

import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Gives each column (or table) a SQL name that no other in its scope has, ignoring case as DuckDB does. The first
 * path to want a name gets it; a later one that collides ({@code Name} after {@code name}, or the property
 * {@code a__b} after the flattened {@code a.b}) gets {@code _1}, {@code _2}, ... as Fabric mirroring does. Names are
 * handed out once and kept in the schema, so they never change across restarts and replays.
 */
final class ColumnNamer {
    static final String SEPARATOR = "__";

    private final Set<String> taken = new HashSet<>();

    String claim(String wanted) {
        String name = wanted;
        for (int suffix = 1; !taken.add(key(name)); suffix++) {
            name = wanted + "_" + suffix;
        }
        return name;
    }

    /** Marks a name as used (reloading a schema, or a system column). */
    void reserve(String name) {
        taken.add(key(name));
    }

    /** The wanted name of a path: its property names joined by {@code __}, each made safe for SQL. */
    static String baseName(List<String> path) {
        StringBuilder name = new StringBuilder();
        for (String segment : path) {
            if (name.length() > 0) {
                name.append(SEPARATOR);
            }
            appendSafe(name, segment);
        }
        return name.toString();
    }

    /**
     * Any UTF-8 name is allowed; only what cannot be spelled in an identifier at all changes: an empty name becomes
     * {@code _}, and control characters and unpaired surrogates become {@code \\uXXXX} text.
     */
    private static void appendSafe(StringBuilder name, String segment) {
        if (segment.isEmpty()) {
            name.append('_');
            return;
        }
        for (int i = 0; i < segment.length(); i++) {
            char c = segment.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < segment.length() && Character.isLowSurrogate(segment.charAt(i + 1))) {
                name.append(c).append(segment.charAt(++i));
            } else if (c < 0x20 || Character.isSurrogate(c)) {
                name.append(String.format("\\u%04x", (int) c));
            } else {
                name.append(c);
            }
        }
    }

    private static String key(String name) {
        return name.toLowerCase(Locale.ROOT);
    }
}
