package io.docmirror.query;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * What ORDER BY places a row by: its values of the sort items (null for undefined) and, for ties, its position.
 * {@link SortOrder} compares them.
 */
record SortKey(List<JsonNode> values, RowPosition position) {
    SortKey {
        // A list that holds nulls (undefined values), which List.copyOf refuses.
        values = Collections.unmodifiableList(Arrays.asList(values.toArray(new JsonNode[0])));
        Objects.requireNonNull(position, "position is null");
    }
}
