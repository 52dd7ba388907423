package io.docmirror.flatten;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * One part of a long sequence of documents flattened to learn the schema, not to write rows: from the schema the
 * part is thought to start from ({@link SchemaPlan#startOf}), it keeps the documents that changed what the schema
 * decides ({@link Flattener#changingWalks}: a column added or widened, a number a column must hold, a structure a
 * path claims) and the schema it ended with. Documents that change nothing change no decision, so replaying only
 * the kept ones from the same start ends at the same schema. {@link SchemaPlan} puts the parts together.
 *
 * <p>Not thread-safe: one scan per part.
 */
public final class SchemaScan {
    private final Flattener flattener;
    private final List<Kept> kept = new ArrayList<>();
    private long documents;

    /**
     * A document that changed its part's schema: what replaying it needs, and its place in the part.
     *
     * @param position how many documents of the part come before it
     */
    public record Kept(long position, String container, String partitionKey, long lsn, byte[] json)
            implements Serializable {
        public Kept {
            requireNonNull(container, "container is null");
            requireNonNull(partitionKey, "partitionKey is null");
            requireNonNull(json, "json is null");
        }

        SourceDocument document() {
            return new SourceDocument(container, partitionKey, lsn, json);
        }
    }

    /**
     * What a scan learned of its part.
     *
     * @param kept the documents that changed the schema, in order
     * @param end the schema after the part, without tallies ({@link SchemaCodec#structureToJson})
     * @param documents how many documents the part has
     */
    public record Result(List<Kept> kept, String end, long documents) implements Serializable {
        public Result {
            kept = List.copyOf(kept);
            requireNonNull(end, "end is null");
        }
    }

    /** @param start the schema the part is thought to start from ({@link SchemaPlan#startOf}) */
    public SchemaScan(String start, FlattenerConfig config) {
        this.flattener = new Flattener(SchemaCodec.fromJson(start, config));
    }

    /**
     * Flattens one document of the part, in order, keeping it when it changes the schema. A document that cannot be
     * flattened is kept when its failure changed the schema part way, as a replay must fail it the same way; else it
     * changes nothing, and it goes to the dead letters when the part is written.
     */
    public void add(String container, String partitionKey, long lsn, byte[] json) {
        long before = flattener.changingWalks();
        try {
            flattener.flatten(new SourceDocument(container, partitionKey, lsn, json));
        } catch (FlattenException e) {
            // Written as a dead letter, and logged, when the part is written: here only the schema matters.
        }
        if (flattener.changingWalks() != before) {
            kept.add(new Kept(documents, container, partitionKey, lsn, json));
        }
        documents++;
    }

    public Result result() {
        return new Result(kept, SchemaCodec.structureToJson(flattener.schema()), documents);
    }
}
