package io.docmirror.flatten;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * The first pass of flattening a long sequence of documents in parts, on many machines, into exactly the schema one
 * flattener would decide over the whole sequence: each part is flattened from an empty schema, and only the
 * documents that changed what that schema decides ({@link Flattener#changingWalks}) are kept. Every document that
 * changes the whole sequence's schema is among them, since what a part's flattener knew before a document is a part
 * of what the whole sequence's knew: a path, a type, a number's digits or a structure new to the whole sequence is
 * new to the part. {@link SchemaReplay} then replays the kept documents of every part in order, and flattening
 * each part from its starting schema checks that it ends where the next part starts.
 *
 * <p>Not thread-safe: one scan per part.
 */
public final class SchemaScan {
    private final Flattener flattener;
    private final List<Kept> kept = new ArrayList<>();
    private long documents;

    /** A document that changed its part's schema: what replaying it needs. */
    public record Kept(String container, String partitionKey, long lsn, byte[] json) implements Serializable {
        public Kept {
            requireNonNull(container, "container is null");
            requireNonNull(partitionKey, "partitionKey is null");
            requireNonNull(json, "json is null");
        }

        SourceDocument document() {
            return new SourceDocument(container, partitionKey, lsn, json);
        }
    }

    public SchemaScan(FlattenerConfig config) {
        this.flattener = Flattener.create(config);
    }

    /**
     * Flattens one document of the part, in order, keeping it when it changes the part's schema. A document that
     * cannot be flattened is kept when its failure changed the schema part way, as a replay must fail it the same
     * way; else it changes nothing, as it goes to the dead letters.
     */
    public void add(String container, String partitionKey, long lsn, byte[] json) {
        documents++;
        long before = flattener.changingWalks();
        try {
            flattener.flatten(new SourceDocument(container, partitionKey, lsn, json));
        } catch (FlattenException e) {
            // A dead letter of the mirror: what matters here is only whether it moved the schema.
        }
        if (flattener.changingWalks() != before) {
            kept.add(new Kept(container, partitionKey, lsn, json));
        }
    }

    /** The part's documents that changed its schema, in order. */
    public List<Kept> kept() {
        return List.copyOf(kept);
    }

    /** How many documents the part has. */
    public long documents() {
        return documents;
    }
}
