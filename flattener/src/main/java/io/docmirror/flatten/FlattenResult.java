package io.docmirror.flatten;

import java.util.List;
import java.util.Optional;

/**
 * What flattening one document produced.
 *
 * @param rows the root row first, then child rows, parents before their children, elements in array order
 * @param schemaChanges what this document added to the schema (often nothing)
 * @param losses values the well-defined policy left NULL; always empty for the other policies
 * @param deadLetter set when the document could not be mirrored at all; then there are no rows and the schema is
 *     unchanged
 */
public record FlattenResult(List<Row> rows, List<SchemaChange> schemaChanges, List<ValueLoss> losses,
        Optional<DeadLetter> deadLetter) {
    public FlattenResult {
        rows = List.copyOf(rows);
        schemaChanges = List.copyOf(schemaChanges);
        losses = List.copyOf(losses);
    }

    static FlattenResult deadLetter(DeadLetter deadLetter) {
        return new FlattenResult(List.of(), List.of(), List.of(), Optional.of(deadLetter));
    }
}
