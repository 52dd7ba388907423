package io.docmirror.mirror.iceberg;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.docmirror.flatten.SchemaCodec;
import io.docmirror.layout.MirrorProperties;
import io.docmirror.layout.MirrorSummary;
import io.docmirror.layout.MirrorTables;
import io.docmirror.mirror.MirrorErrorCode;
import io.docmirror.mirror.MirrorException;
import io.docmirror.mirror.MirrorTarget.Committed;
import io.docmirror.mirror.source.Checkpoint;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

import static java.util.Objects.requireNonNull;

/**
 * Makes one batch ({@link BatchWriter}) a commit of every table it changed, in three steps: staging (each table's
 * new metadata, the root snapshot's summary with the checkpoint and the flattener's schema), the catalog's commit,
 * and, once the catalog took it, the bookkeeping of this process (the document index, {@link CommittedTables}). Or
 * abandons the batch, leaving nothing of it.
 */
final class BatchCommit {
    private static final Logger log = LoggerFactory.getLogger(BatchCommit.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final ContainerResources resources;
    private final CommittedTables committed;
    private final BatchWriter batch;
    /** Root summary entries the batch sets (null: removes) among those that carry on. */
    private final Map<String, String> summaryChanges = new HashMap<>();

    BatchCommit(ContainerResources resources, CommittedTables committed, BatchWriter batch) {
        this.resources = resources;
        this.committed = committed;
        this.batch = batch;
    }

    /** Sets (or, with null, removes) a root summary entry that carries on from commit to commit. */
    void setCarried(String key, String value) {
        summaryChanges.put(key, value);
    }

    /**
     * Makes the batch visible, durably, as one commit of every table it changed, ending at {@code checkpoint}. On
     * failure nothing becomes visible: the batch is abandoned and the next one starts from the last commit.
     */
    Committed commit(Checkpoint checkpoint) {
        requireNonNull(checkpoint, "checkpoint is null");
        if (!checkpoint.historyFrom().isEmpty()) {
            // A source that loaded the container's current documents before streaming: where the history starts.
            summaryChanges.put(MirrorSummary.HISTORY_FROM, json(checkpoint.historyFrom()));
        }
        Staged staged = stage(checkpoint);
        if (batch.kind().indexesDocuments() && !batch.rebuild()) {
            try {
                batch.prepareIndex();
                resources.observer().reached(CommitStep.INDEX_PREPARED, null);
            } catch (RuntimeException e) {
                throw abort(e);
            }
        }
        // The point of no return: once the request is sent, the batch may be in the catalog whatever comes back.
        try {
            batch.catalogBatch().commit();
        } catch (CommitFailedException e) {
            // The catalog refused the batch (a table moved since the batch read it): nothing of it is reachable.
            throw abort(e);
        } catch (RuntimeException e) {
            throw outOfStep(e, "its outcome is unknown (" + e.getMessage() + ")");
        }
        try {
            return afterCommit(checkpoint, staged);
        } catch (RuntimeException e) {
            throw outOfStep(e, "was committed, but recording it in this process failed");
        }
    }

    /** What a staged batch recorded in the root snapshot's summary. */
    private record Staged(String schema, String schemaLocation, long lastEventTs) {
    }

    /** Stages every changed table's new metadata, the root table's with the summary that names the batch. */
    private Staged stage(Checkpoint checkpoint) {
        try {
            batch.finish();
            TableChanges root = batch.flattenedTable(committed.flattener().schema().root());
            if (batch.replacing()) {
                replaceTheRest();
            }
            String conflicts = json(ConflictEntry.of(committed.flattener().schema()));
            Map<String, String> recorded = root.table().properties();
            // Tables opened by name do not know the container's TTL: the recorded one stays.
            String ttl = resources.analyticalTtl().isPresent()
                    ? Long.toString(resources.analyticalTtl().getAsLong())
                    : recorded.getOrDefault(MirrorProperties.ANALYTICAL_TTL, "-1");
            if (!conflicts.equals(recorded.get(MirrorProperties.CONFLICTS))
                    || !ttl.equals(recorded.get(MirrorProperties.ANALYTICAL_TTL))) {
                root.transaction().updateProperties().set(MirrorProperties.CONFLICTS, conflicts)
                        .set(MirrorProperties.ANALYTICAL_TTL, ttl).commit();
            }
            String schema = SchemaCodec.toJson(committed.flattener().schema());
            String schemaLocation = schema.equals(committed.schema()) ? committed.schemaLocation()
                    : writeSchema(schema);
            long eventTs = Math.max(committed.lastEventTs(), batch.lastEventTs());
            for (TableChanges table : batch.tables()) {
                Map<String, String> summary = new LinkedHashMap<>();
                summary.put(MirrorSummary.BATCH, Long.toString(batch.number()));
                if (table == root) {
                    summary.put(MirrorSummary.COMMIT_KIND, batch.kind().summaryName());
                    summary.put(MirrorSummary.CHECKPOINT, JSON.writeValueAsString(checkpoint));
                    summary.put(MirrorSummary.POSITIONS, JSON.writeValueAsString(checkpoint.positions()));
                    summary.put(MirrorSummary.FLATTENER_SCHEMA, schemaLocation);
                    summary.put(MirrorSummary.LAST_EVENT_TS, Long.toString(eventTs));
                    carriedAfter().forEach(summary::put);
                }
                table.stage(summary, resources.observer());
            }
            return new Staged(schema, schemaLocation, eventTs);
        } catch (JsonProcessingException e) {
            throw abort(new IllegalStateException("Cannot write the checkpoint of " + resources.container(), e));
        } catch (RuntimeException e) {
            throw abort(e);
        }
    }

    /** Records in this process what the catalog took: the document index, the vectors, the checkpoint. */
    private Committed afterCommit(Checkpoint checkpoint, Staged staged) {
        int files = 0;
        long bytes = 0;
        for (TableChanges table : batch.tables()) {
            committed.vectorsCommitted(table.name(), table.committedVectors());
            files += table.addedFiles().size();
            bytes += table.addedFiles().stream().mapToLong(DataFile::fileSizeInBytes).sum();
        }
        DocumentIndex rows = resources.rows();
        if (batch.rebuild()) {
            rows.mark(DocumentIndex.marker(rootUuid(), batch.number()));
        } else if (batch.kind().indexesDocuments()) {
            rows.apply(batch.number(), DocumentIndex.marker(rootUuid(), batch.number()));
        } else {
            // A backfill's rows are not in the index: unmarked, it is rebuilt when the tables open.
            rows.unmark();
            batch.tables().forEach(table -> table.leavingFiles().forEach(rows::forget));
        }
        boolean replacing = batch.replacing();
        committed.committed(batch.number(), checkpoint, staged.schema(), staged.schemaLocation(),
                staged.lastEventTs(), carriedAfter());
        if (replacing) {
            committed.replacedBy(batch.tableNames());
        }
        if (!batch.kind().indexesDocuments()) {
            committed.backfilled();
        }
        resources.observer().reached(CommitStep.BATCH_COMMITTED, null);
        Compaction applied = batch.appliedCompaction();
        if (applied != null) {
            log.debug("Compacted {} in batch {}: {}", resources.container(), batch.number(),
                    String.join("; ", applied.describe()));
        }
        return new Committed(committed.position(), files, bytes, applied != null);
    }

    private String rootUuid() {
        return committed.rootUuid(resources.catalog().catalog(), resources.table(resources.rootTable()));
    }

    /**
     * Ends a batch whose commit request was sent and then failed without the catalog saying it refused the batch (a
     * REST catalog's {@code CommitStateUnknownException}, a timeout, a lost answer), or whose bookkeeping failed once
     * the catalog took it. The batch may be in the catalog, so none of its files may be deleted: a committed
     * snapshot would point at missing files (Iceberg's own {@code SnapshotProducer} keeps them too). What this
     * process holds (checkpoint, document index, schema) may now differ from the catalog, so the tables refuse every
     * further batch until opened again, which reads what the catalog holds: the batch is then either there, and the
     * source goes on after it, or not, and its files are orphans that the first upkeep removes once they are old
     * enough ({@code mirror.snapshots.keep-ms}).
     */
    private MirrorException outOfStep(RuntimeException failure, String what) {
        committed.partFromCatalog("batch " + batch.number() + " " + what);
        return new MirrorException(MirrorErrorCode.COMMIT_UNKNOWN,
                "Batch " + batch.number() + " of " + resources.container() + " " + what
                + ": its files are kept, and the container's tables must be opened again to learn from the catalog "
                + "whether it landed", failure);
    }

    /**
     * In a batch that replaces the tables, what its changes did not reach: the dead letters (and, but in a rebuild,
     * the history) are replaced, emptied when no change went there, and a flattened table the new schema lacks is
     * dropped.
     */
    private void replaceTheRest() {
        CatalogBatch catalogBatch = batch.catalogBatch();
        String deadLetters = MirrorTables.deadLetters(resources.rootTable());
        if (!batch.changes(deadLetters) && catalogBatch.exists(resources.table(deadLetters))) {
            batch.deadLettersTable();
        }
        String history = MirrorTables.history(resources.rootTable());
        if (!batch.rebuild() && !batch.changes(history) && catalogBatch.exists(resources.table(history))) {
            batch.historyTable();
        }
        Catalog catalog = resources.catalog().catalog();
        for (TableIdentifier identifier : catalog.listTables(MirrorTables.namespace(resources.container()))) {
            String role = catalog.loadTable(identifier).properties().getOrDefault(MirrorProperties.TABLE_ROLE, "");
            boolean flattened = role.equals(MirrorProperties.ROOT) || role.equals(MirrorProperties.CHILD);
            if (flattened && committed.flattener().schema().findTable(identifier.name()).isEmpty()) {
                catalogBatch.drop(identifier);
            }
        }
    }

    /** The carried summary entries after this batch. */
    private Map<String, String> carriedAfter() {
        Map<String, String> after = new HashMap<>(committed.carried());
        summaryChanges.forEach((key, value) -> {
            if (value == null) {
                after.remove(key);
            } else {
                after.put(key, value);
            }
        });
        return after;
    }

    /** Abandons the batch after {@code failure}, which it returns with what the cleanup threw suppressed in it. */
    RuntimeException abort(RuntimeException failure) {
        try {
            abort();
        } catch (RuntimeException cleanup) {
            failure.addSuppressed(cleanup);
        }
        return failure;
    }

    /** Abandons the batch: its files are removed, and the flattener goes back to the committed schema. */
    void abort() {
        committed.restoreFlattener();
        batch.abandon();
    }

    private String writeSchema(String schema) {
        String location = MirrorTables.containerLocation(resources.settings().warehouse(), resources.container())
                + "/_flattener/" + String.format("%010d-%s.json", batch.number(), UUID.randomUUID());
        OutputFile file = resources.io().newOutputFile(location);
        try (PositionOutputStream out = file.create()) {
            out.write(schema.getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write the flattener schema " + location, e);
        }
        resources.observer().reached(CommitStep.FLATTENER_SCHEMA_WRITTEN, null);
        return location;
    }

    static String json(Object value) {
        try {
            return JSON.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("Cannot write " + value + " as JSON", e);
        }
    }
}
