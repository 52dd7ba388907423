package io.docmirror.mirror.iceberg;

import io.docmirror.feed.ContinuationToken;
import io.docmirror.flatten.ContainerSchema;
import io.docmirror.flatten.SchemaCodec;
import io.docmirror.flatten.SchemaPlan;
import io.docmirror.mirror.MirrorErrorCode;
import io.docmirror.mirror.MirrorException;
import io.docmirror.mirror.MirrorTarget.Committed;
import io.docmirror.mirror.source.Checkpoint;
import org.apache.iceberg.SerializableTable;
import org.apache.iceberg.Table;

import java.util.LinkedHashMap;
import java.util.Map;

import static java.util.Objects.requireNonNull;

/**
 * A backfill whose parts are written elsewhere, in parallel (a Spark job's executors), and committed here as one
 * batch that replaces the container's tables, as a single-machine backfill over a mirror does
 * ({@link ContainerTables#beginBackfillInParts}).
 *
 * <p>The parts are the container's documents in the order a single-machine backfill reads them, cut anywhere. The
 * schema comes first, from rounds of scans of the parts ({@link SchemaPlan}): the batch opens every table with its
 * final schema ({@link #target}), each part is written from the schema it starts from ({@link PartWriter}), and the
 * parts come back in order ({@link #add}), each checked to end where the next starts, their tallies added up. The
 * plan may be a guess (after one round of scans): when a part does not {@link #fits fit}, the backfill is abandoned
 * and its parts written again once the plan has learned from them. The commit then makes every table, the
 * flattener's schema and the feed's start one catalog commit: readers see the old mirror (or none) until then, and a
 * backfill abandoned midway leaves nothing.
 */
public final class BackfillInParts {
    private final String container;
    private final ContainerBatch batch;
    private final SchemaPlan plan;
    /** The final schema, which takes each part's tallies as it comes. */
    private final ContainerSchema schema;
    private final RemoteWriteTarget target;
    private int added;

    BackfillInParts(String container, ContainerBatch batch, SchemaPlan plan, long fileRows) {
        this.container = requireNonNull(container, "container is null");
        this.batch = batch;
        this.plan = plan;
        this.schema = plan.end();
        BatchWriter writer = batch.writer();
        writer.adoptSchema(schema);
        Map<String, Table> tables = new LinkedHashMap<>();
        for (String name : writer.tableNames()) {
            tables.put(name, SerializableTable.copyOf(writer.stagedTable(name)));
        }
        this.target = new RemoteWriteTarget(container, SchemaCodec.structureToJson(schema), tables, writer.number(),
                fileRows);
    }

    /** What each part is written against: send it to the part writers. */
    public RemoteWriteTarget target() {
        return target;
    }

    /** How many parts the backfill has. */
    public int parts() {
        return plan.parts();
    }

    /** The schema part {@code part} starts from: send it to that part's writer. */
    public String startOf(int part) {
        return plan.startOf(part);
    }

    /**
     * Whether the part was written whole and ended where the next part starts (where the schema ends, for the last):
     * always, when the parts were written from a settled plan; a part written from a start the plan only guessed may
     * not, and then it and the parts after it are written again ({@link #discard}).
     */
    public boolean fits(int part, WrittenPart written) {
        return fits(part, written, SchemaCodec.fromJson(written.schema(), schema.config()));
    }

    /** {@link #fits(int, WrittenPart)}, given the schema the part ended with, read once by the caller. */
    private boolean fits(int part, WrittenPart written, ContainerSchema ended) {
        return written.complete() && plan.endsWhereNextStarts(part, SchemaCodec.structureToJson(ended));
    }

    /**
     * Takes the next part, in order.
     *
     * @throws IllegalArgumentException when the part is not the next one
     * @throws MirrorException with {@code INTERNAL_ERROR} when the part does not {@link #fits fit}: its writer was
     *     given another start, or other documents, than the plan
     */
    public void add(int part, WrittenPart written) {
        requireNonNull(written, "written is null");
        if (part != added) {
            throw new IllegalArgumentException("The parts of the backfill of " + container + " are taken in order: "
                    + "part " + added + " is next, not part " + part);
        }
        ContainerSchema ended = SchemaCodec.fromJson(written.schema(), schema.config());
        if (!fits(part, written, ended)) {
            throw new MirrorException(MirrorErrorCode.INTERNAL_ERROR, "Part " + part + " of the backfill of "
                    + container + " ended with another schema than the next part starts from: its documents are not "
                    + "the ones the schema plan scanned, or not in the same order");
        }
        schema.addTallies(ended);
        batch.writer().addWritten(written.files(), written.events(), written.lastEventTs());
        added++;
    }

    /** Removes the data files of a written part that will not be added (one written from a wrong guess). */
    public void discard(WrittenPart written) {
        written.files().forEach((table, files) -> files.forEach(file ->
                target.table(table).io().deleteFile(file.location())));
    }

    /**
     * Commits every part as one batch: the tables are replaced, and the change feed starts at each feed range's
     * snapshot LSN, the history holding every change from there on.
     *
     * @throws IllegalStateException when parts are missing
     */
    public Committed commit(Map<Integer, Long> rangeLsns) {
        if (added != plan.parts()) {
            throw new IllegalStateException("The backfill of " + container + " has " + plan.parts() + " parts, and "
                    + added + " were added");
        }
        return batch.commitReplacingBackfill(rangeLsns, Checkpoint.ofContinuation(
                new ContinuationToken(container, rangeLsns).encode()));
    }

    /** Abandons the backfill: the tables stay as they were, and the files of the parts taken go. */
    public void abort() {
        batch.abort();
    }

    /** How many documents the parts taken so far held. */
    public long documents() {
        return batch.events();
    }
}
