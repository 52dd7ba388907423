package io.docmirror.mirror.iceberg;

import io.docmirror.flatten.ContainerSchema;
import io.docmirror.flatten.Flattener;
import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.flatten.SchemaCodec;
import io.docmirror.flatten.TableSchema;
import io.docmirror.layout.MirrorSummary;
import io.docmirror.layout.MirrorTables;
import io.docmirror.mirror.MirrorErrorCode;
import io.docmirror.mirror.MirrorException;
import io.docmirror.mirror.MirrorTarget.Committed;
import io.docmirror.mirror.source.Checkpoint;
import io.docmirror.store.changelog.ChangeEvent;
import org.apache.iceberg.SerializableTable;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.function.BiConsumer;

import static java.util.Objects.requireNonNull;

/**
 * One commit of a scaled-out stream, made by its one committer at a checkpoint of its engine: the documents the
 * writers could not flatten against the committed schema decide how it grows ({@link #decide}), each writer's files
 * and the rows its changes replaced go in ({@link #add}), and every table of the container changes in one catalog
 * commit with the feed's position ({@link #commit}). The writers then write against the new schema
 * ({@link ContainerTables#shardTarget}) and apply the changes they held.
 */
public final class ShardedBatch {
    private final ContainerBatch batch;
    private final CommittedTables committed;
    /** How many changes the batch decided the schema for: its writers apply them with the next batch. */
    private long decided;

    ShardedBatch(String container, ContainerBatch batch, CommittedTables committed) {

        this.batch = batch;
        this.committed = committed;
        // The writers write history and dead letters from their first change on: the first commit makes them.
        batch.writer().createLogTables();
    }

    /**
     * Decides the schema for documents the writers could not flatten against it, in this order: each is flattened
     * as a single mirror would flatten it next, and the tables' schemas grow with the flattener's. No row is
     * written: the writers apply these changes once the schema is committed.
     */
    public void decide(List<ChangeEvent> documents) {
        requireNonNull(documents, "documents is null");
        documents.forEach(batch.writer()::decide);
        decided += documents.size();
    }

    /**
     * Adds what one writer wrote: its data files, the rows its changes replaced, and the tallies it counted. A writer
     * may have written against an older commit than the last (it learns of commits by reading the catalog): its
     * files and rows are then brought to the tables as they are now ({@link BatchWriter#addShard}).
     */
    public void add(WrittenShard shard) {
        requireNonNull(shard, "shard is null");
        BatchWriter writer = batch.writer();
        shard.files().keySet().forEach(writer::openTable);
        writer.addShard(shard);
        ContainerSchema schema = committed.flattener().schema();
        for (String tallies : shard.tallies()) {
            schema.addTallies(SchemaCodec.fromJson(tallies, schema.config()));
        }
    }

    /** How many changes the writers' shards added so far held. */
    public long events() {
        return batch.events();
    }

    /**
     * Commits the batch: the feed continues from {@code checkpoint}, and the root snapshot's summary carries
     * {@code carried} (the engine's checkpoint, by which a restarted committer knows what it committed).
     */
    public Committed commit(Checkpoint checkpoint, Map<String, String> carried) {
        Map<String, String> summary = new HashMap<>(carried);
        summary.put(MirrorSummary.HELD_CHANGES, Long.toString(decided));
        return batch.commitCarrying(summary, checkpoint);
    }

    /**
     * Refuses to let a single mirror ({@code who}) take the container over from a scaled-out stream's commit whose
     * writers have changes to apply still: the commit's feed position passes them, so they would be lost.
     *
     * @throws MirrorException with {@code REFUSED_CONFIGURATION} naming how many changes and what to do
     */
    static void refuseWhileChangesAreHeld(Catalog catalog, String container, String rootTable, String who) {
        TableIdentifier root = MirrorTables.table(container, rootTable);
        Snapshot snapshot = catalog.tableExists(root) ? catalog.loadTable(root).currentSnapshot() : null;
        long held = snapshot == null ? 0
                : Long.parseLong(snapshot.summary().getOrDefault(MirrorSummary.HELD_CHANGES, "0"));
        if (held > 0) {
            throw new MirrorException(MirrorErrorCode.REFUSED_CONFIGURATION, "The last commit of " + container
                    + " was a scaled-out stream's (the Flink job's), and its writers had " + held + " change(s) to "
                    + "apply still, which its feed position passes: " + who + " would lose them. Restore the job "
                    + "from its latest checkpoint, and stop it after a commit that leaves none (its summary's "
                    + MirrorSummary.HELD_CHANGES + " is 0)");
        }
    }

    /** Abandons the batch: the tables stay as they were; the writers' files it took are removed. */
    public void abort() {
        batch.abort();
    }

    /** The committed tables and schema as the writers write against them, their files named by {@code checkpoint}. */
    static RemoteWriteTarget target(ContainerResources resources, CommittedTables committed, long checkpoint) {
        return target(resources.catalog().catalog(), resources.container(), committed.flattener().schema(),
                checkpoint, resources.config().parquet().fileRows());
    }

    /**
     * What the catalog last committed of {@code container}'s tables, read as a writer of a scaled-out stream reads
     * it: without the container's writer lock (the committer holds it) and without opening the tables for writing.
     *
     * @param checkpoint the number that starts the data files' names
     * @param fileRows how many rows a data file holds at most ({@code mirror.parquet.file-rows})
     */
    public static CommittedTarget committedTarget(Catalog catalog, String container, FlattenerConfig config,
            long checkpoint, long fileRows) {
        TableIdentifier rootIdentifier = MirrorTables.table(container, config.rootTable());
        Table root = catalog.tableExists(rootIdentifier) ? catalog.loadTable(rootIdentifier) : null;
        Snapshot snapshot = root == null ? null : root.currentSnapshot();
        if (snapshot == null) {
            // No commit yet: the first commit's schema makes the tables.
            return new CommittedTarget(target(catalog, container, Flattener.create(config).schema(), checkpoint,
                    fileRows), Map.of(), Checkpoint.NONE);
        }
        ContainerSchema schema = SchemaCodec.fromJson(TablesState.schemaOf(root, snapshot), config);
        return new CommittedTarget(target(catalog, container, schema, checkpoint, fileRows), snapshot.summary(),
                TablesState.checkpointOf(snapshot));
    }

    /**
     * The committed tables as a writer writes against them, with the summary of the root table's snapshot they were
     * read at (and in it the entries the committer carried, {@link #commit}) and the feed's position there.
     */
    public record CommittedTarget(RemoteWriteTarget target, Map<String, String> summary, Checkpoint checkpoint) {
        public CommittedTarget {
            summary = Map.copyOf(summary);
        }

        /**
         * Hands every live row of the committed flattened tables to {@code rows}, with the key of its document, as
         * {@link ContainerTables#forEachDocumentRow} does, read-only.
         *
         * @param planner the threads the scans plan with
         */
        public void forEachDocumentRow(Catalog catalog, ExecutorService planner, BiConsumer<String, RowPlace> rows) {
            ContainerTables.forEachDocumentRow(catalog, planner, target.container(),
                    SchemaCodec.fromJson(target.schema()), rows);
        }
    }

    private static RemoteWriteTarget target(Catalog catalog, String container, ContainerSchema schema,
            long checkpoint, long fileRows) {
        List<String> names = new ArrayList<>();
        schema.tables().stream().map(TableSchema::name).forEach(names::add);
        names.add(MirrorTables.history(schema.root().name()));
        names.add(MirrorTables.deadLetters(schema.root().name()));
        Map<String, Table> tables = new LinkedHashMap<>();
        for (String name : names) {
            TableIdentifier identifier = MirrorTables.table(container, name);
            if (catalog.tableExists(identifier)) {
                tables.put(name, SerializableTable.copyOf(catalog.loadTable(identifier)));
            }
        }
        return new RemoteWriteTarget(container, SchemaCodec.structureToJson(schema), tables, checkpoint, fileRows);
    }
}
