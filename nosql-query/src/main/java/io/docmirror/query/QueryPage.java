package io.docmirror.query;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One page of a query's results, and the continuation that asks for the next page, empty on the last page.
 */
public record QueryPage(List<JsonNode> results, Optional<String> continuation) {
    public QueryPage {
        results = List.copyOf(results);
        Objects.requireNonNull(continuation, "continuation is null");
    }
}
