package io.docmirror.flatten;

import java.util.ArrayList;
import java.util.List;

import static java.util.Objects.requireNonNull;

/**
 * The second step of flattening a sequence of documents in parts ({@link SchemaScan}): the documents that changed
 * their part's schema, replayed part by part in order through one flattener, give the schema each part starts from
 * and the one the whole sequence ends with. A document left out of the replay changes no schema, so the schema
 * before each part is exactly the one a single flattener of the whole sequence has there. Each part is then
 * flattened from its starting schema ({@link #startOf}), making the rows and the tallies one flattener would, and
 * the final schema adds up the parts' tallies in order ({@link ContainerSchema#addTallies}).
 *
 * <p>Holds the schema once per part (as JSON): a few kilobytes each, however many documents a part has.
 */
public final class SchemaReplay {
    private final Flattener flattener;
    private final List<String> starts = new ArrayList<>();

    public SchemaReplay(FlattenerConfig config) {
        this.flattener = Flattener.create(config);
    }

    /** Replays the kept documents of the next part, in order. */
    public void replay(List<SchemaScan.Kept> part) {
        requireNonNull(part, "part is null");
        starts.add(SchemaCodec.structureToJson(flattener.schema()));
        for (SchemaScan.Kept document : part) {
            try {
                flattener.flatten(document.document());
            } catch (FlattenException e) {
                // It fails the same way when its part is flattened, and goes to the dead letters there.
            }
        }
    }

    /** How many parts were replayed. */
    public int parts() {
        return starts.size();
    }

    /** The schema part {@code part} starts from, without tallies ({@link SchemaCodec#structureToJson}). */
    public String startOf(int part) {
        return starts.get(part);
    }

    /** The schema after every part replayed so far, without tallies: add each part's to it, in order. */
    public ContainerSchema end() {
        return SchemaCodec.fromJson(SchemaCodec.structureToJson(flattener.schema()), flattener.schema().config());
    }
}
