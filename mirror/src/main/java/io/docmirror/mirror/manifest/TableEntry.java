package io.docmirror.mirror.manifest;

import com.fasterxml.jackson.annotation.JsonInclude;

import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * One table of a manifest version: its columns and the files that hold its rows.
 *
 * @param parent the parent table's name; {@code null} for the root table
 * @param jsonPath where its rows come from ({@code $} for the root, {@code $.items[*]} for a child table)
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record TableEntry(String name, String parent, String jsonPath, List<ColumnEntry> columns,
        List<DataFile> files) {
    public TableEntry {
        requireNonNull(name, "name is null");
        requireNonNull(jsonPath, "jsonPath is null");
        columns = List.copyOf(columns);
        files = List.copyOf(files);
    }

    public boolean isRoot() {
        return parent == null;
    }

    public long rows() {
        return files.stream().mapToLong(DataFile::rows).sum();
    }
}
