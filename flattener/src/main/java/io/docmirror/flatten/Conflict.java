package io.docmirror.flatten;

import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * Values of one path whose type differed from the one the path kept: the SQL catalog's
 * {@code docmirror_conflicts}.
 *
 * @param keptType the path's type ({@code BIGINT}, {@code OBJECT}, ...)
 * @param seenType the type of the values that did not fit
 * @param resolution where those values went: {@code variant column code__varchar}, {@code _overflow}, or
 *     {@code NULL} (well-defined policy: the value is lost, as in Cosmos DB)
 * @param sampleIds the ids of the first few documents that had such a value
 */
public record Conflict(String table, JsonPath path, String keptType, String seenType, String resolution, long count,
        List<String> sampleIds) {
    public Conflict {
        requireNonNull(table, "table is null");
        requireNonNull(path, "path is null");
        sampleIds = List.copyOf(sampleIds);
    }
}
