package io.docmirror.query;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.Objects;

/** A result of a query that sorts or removes duplicates, with the key of the row it was projected from. */
record SortedResult(SortKey key, JsonNode result) {
    SortedResult {
        Objects.requireNonNull(key, "key is null");
        Objects.requireNonNull(result, "result is null");
    }
}
