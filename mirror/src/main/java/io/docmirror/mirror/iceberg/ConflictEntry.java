package io.docmirror.mirror.iceberg;

import io.docmirror.flatten.Conflict;
import io.docmirror.flatten.ContainerSchema;
import io.docmirror.flatten.Overflow;

import java.util.ArrayList;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * Values of one path that did not fit where the flattener put the path, as the SQL catalog's
 * {@code docmirror_conflicts} shows them: a type conflict (kept type, seen type) or an overflow past the table's
 * column limit (no types).
 *
 * @param jsonPath the path in the document ({@code $.code})
 * @param keptType the path's type; null for an overflow
 * @param seenType the type of the values that did not fit; null for an overflow
 * @param resolution where those values went: a variant column, {@code _overflow}, or {@code NULL}
 * @param sampleIds the ids of the first few documents with such a value
 */
public record ConflictEntry(String table, String jsonPath, String keptType, String seenType, String resolution,
        long count, List<String> sampleIds) {
    public ConflictEntry {
        requireNonNull(table, "table is null");
        requireNonNull(jsonPath, "jsonPath is null");
        requireNonNull(resolution, "resolution is null");
        sampleIds = List.copyOf(sampleIds);
    }

    /** The schema's conflicts and overflows, for the SQL catalog's {@code docmirror_conflicts}. */
    public static List<ConflictEntry> of(ContainerSchema schema) {
        List<ConflictEntry> entries = new ArrayList<>();
        for (Conflict conflict : schema.conflicts()) {
            entries.add(new ConflictEntry(conflict.table(), conflict.path().toString(), conflict.keptType(),
                    conflict.seenType(), conflict.resolution(), conflict.count(), conflict.sampleIds()));
        }
        for (Overflow overflow : schema.overflows()) {
            entries.add(new ConflictEntry(overflow.table(), overflow.path().toString(), null, null,
                    "_overflow (the table is at its column limit)", overflow.count(), overflow.sampleIds()));
        }
        return entries;
    }
}
