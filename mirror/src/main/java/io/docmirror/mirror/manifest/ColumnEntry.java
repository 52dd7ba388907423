package io.docmirror.mirror.manifest;

import static java.util.Objects.requireNonNull;

/**
 * One column of a mirrored table, as readers need it.
 *
 * @param name the SQL name users query
 * @param physicalName the name inside the Parquet files: the SQL name when it is a plain identifier, otherwise
 *     {@code c<id>} (Parquet writers restrict names; the mapping lives here, as in Delta Lake's column mapping)
 * @param type the current SQL type as DuckDB spells it; older files may hold a narrower type, which widens exactly
 * @param role the flattener's role ({@code system}, {@code value}, {@code variant}, {@code list}, {@code json},
 *     {@code empty}, {@code overflow})
 * @param jsonPath where the values come from in the document ({@code $.items[*].sku})
 */
public record ColumnEntry(String name, String physicalName, String type, String role, String jsonPath) {
    public ColumnEntry {
        requireNonNull(name, "name is null");
        requireNonNull(physicalName, "physicalName is null");
        requireNonNull(type, "type is null");
        requireNonNull(role, "role is null");
        requireNonNull(jsonPath, "jsonPath is null");
    }

    /** Whether the column's type may still widen: a number (or list of numbers) column of the document's values. */
    public boolean canWiden() {
        if (role.equals("system")) {
            return false;
        }
        String element = type.endsWith("[]") ? type.substring(0, type.length() - 2) : type;
        return element.equals("BIGINT") || element.equals("DOUBLE") || element.startsWith("DECIMAL(");
    }
}
