package io.docmirror.flatten;

import java.util.List;

import static java.util.Objects.requireNonNull;

/** Values of a path that went to {@code _overflow} because their table had reached its column limit. */
public record Overflow(String table, JsonPath path, long count, List<String> sampleIds) {
    public Overflow {
        requireNonNull(table, "table is null");
        requireNonNull(path, "path is null");
        sampleIds = List.copyOf(sampleIds);
    }
}
