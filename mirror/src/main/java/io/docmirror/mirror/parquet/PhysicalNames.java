package io.docmirror.mirror.parquet;

import io.docmirror.flatten.Column;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The names columns have inside Parquet files. A column's SQL name may be any UTF-8 text ({@code "address line 2"},
 * {@code Straße}), which Avro, and so parquet-avro, refuses; such a column is stored as {@code c<id>} and the
 * manifest maps it back, as Delta Lake's column mapping does. A plain identifier is stored as itself, so the files
 * stay readable without the manifest for most columns.
 *
 * <p>A column's physical name depends only on the columns before it, and columns are only ever appended, so a
 * column keeps its physical name in every file the table ever has.
 */
public final class PhysicalNames {
    private static final Pattern AVRO_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    private PhysicalNames() {
    }

    /** The physical names of {@code columns}, in order; unique ignoring case, as DuckDB matches them. */
    public static List<String> of(List<Column> columns) {
        Set<String> taken = new HashSet<>();
        List<String> names = new ArrayList<>(columns.size());
        for (Column column : columns) {
            String candidate = AVRO_NAME.matcher(column.name()).matches() ? column.name() : "c" + column.id();
            while (!taken.add(candidate.toLowerCase(Locale.ROOT))) {
                candidate = candidate + "_" + column.id();
            }
            names.add(candidate);
        }
        return names;
    }
}
