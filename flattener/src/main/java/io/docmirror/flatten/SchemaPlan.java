package io.docmirror.flatten;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

import static java.util.Objects.requireNonNull;

/**
 * Decides, on one machine, the schema of a long sequence of documents flattened in parts on many: the schema each
 * part starts from, exactly the one a single flattener of the whole sequence has there, so that every part can then
 * be flattened on its own into exactly the rows that flattener would make.
 *
 * <p>It works in rounds of {@link SchemaScan}s, each part scanned from the start the plan gives it (a round of
 * writes, each part flattened from its start, serves as a round of scans too: {@link #endsWhereNextStarts}). A part
 * scanned from its exact start ends at the next part's exact start. Every other part's start is a guess: the last
 * exact start with the schema-changing documents of the parts between replayed on it, which is right unless a
 * document that changed nothing in its part's scan changes the whole sequence's schema (its part saw a path first as
 * a string, say, where the sequence had seen a number). The first round scans every part from an empty schema; each
 * later round scans the parts whose start has changed since their last scan. The first part not yet scanned from its
 * exact start always is next round, so the plan settles within as many rounds as there are parts, and in two or
 * three on containers whose documents look alike.
 *
 * <p>Holds a few schemas per part (as JSON, a few kilobytes to a few megabytes for a container at its column limit)
 * and the kept documents, a few per column: never the parts' documents.
 */
public final class SchemaPlan {
    private final FlattenerConfig config;
    /** Per part: where it starts, as far as known. */
    private final String[] starts;
    /** Per part: whether {@link #starts} is the exact start. */
    private final boolean[] exact;
    /** Per part: the start its last scan was from (null: not scanned yet), and where that scan ended. */
    private final String[] scannedFrom;
    private final String[] ends;
    /** Per part: every document any of its scans kept, by position in the part. */
    private final List<TreeMap<Long, SchemaScan.Kept>> kept = new ArrayList<>();
    private int rounds;

    public SchemaPlan(FlattenerConfig config, int parts) {
        this.config = requireNonNull(config, "config is null");
        if (parts < 1) {
            throw new IllegalArgumentException("A sequence of documents has at least one part, not " + parts);
        }
        this.starts = new String[parts];
        this.exact = new boolean[parts];
        this.scannedFrom = new String[parts];
        this.ends = new String[parts];
        String empty = SchemaCodec.structureToJson(ContainerSchema.create(config));
        for (int part = 0; part < parts; part++) {
            starts[part] = empty;
            kept.add(new TreeMap<>());
        }
        exact[0] = true;
    }

    public FlattenerConfig config() {
        return config;
    }

    public int parts() {
        return starts.length;
    }

    /** How many rounds of scans the plan took in. */
    public int rounds() {
        return rounds;
    }

    /** The parts the next round scans, each from {@link #startOf}: empty once the plan is settled. */
    public List<Integer> partsToScan() {
        List<Integer> parts = new ArrayList<>();
        for (int part = 0; part < starts.length; part++) {
            if (!starts[part].equals(scannedFrom[part])) {
                parts.add(part);
            }
        }
        return parts;
    }

    /** Whether every part's start is exact: each was scanned from its start and ended at the next one's. */
    public boolean settled() {
        return partsToScan().isEmpty();
    }

    /** The schema part {@code part} starts from, without tallies: exact once {@link #settled}. */
    public String startOf(int part) {
        return starts[part];
    }

    /**
     * The schema the whole sequence ends with, without tallies: exact once {@link #settled}, else the guess the
     * starts lead to. Add the written parts' tallies to it in order.
     *
     * @throws IllegalStateException before the first round
     */
    public ContainerSchema end() {
        if (rounds == 0) {
            throw new IllegalStateException("The schema plan has scanned no part yet");
        }
        int last = ends.length - 1;
        String end = starts[last].equals(scannedFrom[last]) ? ends[last]
                : replay(starts[last], kept.get(last).values());
        return SchemaCodec.fromJson(end, config);
    }

    /**
     * Whether a part that was flattened from its start (scanned or written) ended where the plan has the next part
     * start, or where it has the sequence end for the last part. When every part does, the guessed starts were
     * exact: a writer may write the parts from the plan's guesses after one round and check this, rather than
     * scanning until the plan settles.
     */
    public boolean endsWhereNextStarts(int part, String end) {
        String next = part + 1 < starts.length ? starts[part + 1] : SchemaCodec.structureToJson(end());
        return next.equals(end);
    }

    /**
     * Takes the scans of one round: {@code results} holds one result for each of {@link #partsToScan}, in that order.
     * The starts are then worked out again.
     */
    public void scanned(List<SchemaScan.Result> results) {
        List<Integer> parts = partsToScan();
        if (results.size() != parts.size()) {
            throw new IllegalArgumentException("A round scans parts " + parts + ": " + results.size()
                    + " results came back");
        }
        for (int index = 0; index < parts.size(); index++) {
            int part = parts.get(index);
            SchemaScan.Result result = results.get(index);
            scannedFrom[part] = starts[part];
            ends[part] = result.end();
            result.kept().forEach(document -> kept.get(part).put(document.position(), document));
        }
        rounds++;
        for (int part = 0; part + 1 < starts.length; part++) {
            boolean exactEnd = exact[part] && starts[part].equals(scannedFrom[part]);
            exact[part + 1] = exactEnd;
            starts[part + 1] = exactEnd ? ends[part] : replay(starts[part], kept.get(part).values());
        }
    }

    /** The schema {@code start} ends at with {@code documents} flattened on it. */
    private String replay(String start, Iterable<SchemaScan.Kept> documents) {
        Flattener flattener = new Flattener(SchemaCodec.fromJson(start, config));
        for (SchemaScan.Kept document : documents) {
            try {
                flattener.flatten(document.document());
            } catch (FlattenException e) {
                // It fails the same way when its part is written, and goes to the dead letters there.
            }
        }
        return SchemaCodec.structureToJson(flattener.schema());
    }
}
