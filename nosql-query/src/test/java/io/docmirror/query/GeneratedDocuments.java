package io.docmirror.query;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.Iterator;
import java.util.function.IntFunction;
import java.util.stream.IntStream;

/**
 * Documents made one at a time as a query reads them, never all held: the document at each index is made by a
 * function of the index, so every reading gives the same documents in the same order, as a store's scan does.
 */
record GeneratedDocuments(int count, IntFunction<JsonNode> document) implements Iterable<JsonNode> {
    @Override
    public Iterator<JsonNode> iterator() {
        return IntStream.range(0, count).mapToObj(document).iterator();
    }
}
