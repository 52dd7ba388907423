package io.docmirror.flatten;

import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * One column of a table.
 *
 * @param id stable identity within the table: never reused, never renumbered, survives widening
 * @param name the SQL name, unique in the table ignoring case
 * @param jsonPath where the values come from, from the document's root ({@code $.items[*].sku})
 * @param path the property names from the table's row to the value (empty for a child row's element itself)
 * @param role why the column exists
 * @param type the SQL type now; it only ever widens
 * @param tag the kind of value for value columns, {@code null} for system, {@code _empty} and {@code _overflow}
 */
public record Column(int id, String name, JsonPath jsonPath, List<String> path, ColumnRole role, ColumnType type,
        ValueTag tag) {
    public Column {
        requireNonNull(name, "name is null");
        requireNonNull(jsonPath, "jsonPath is null");
        path = List.copyOf(path);
        requireNonNull(role, "role is null");
        requireNonNull(type, "type is null");
    }

    Column withType(ColumnType wider) {
        return new Column(id, name, jsonPath, path, role, wider, tag);
    }
}
