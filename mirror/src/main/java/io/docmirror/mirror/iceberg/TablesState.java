package io.docmirror.mirror.iceberg;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.docmirror.flatten.ContainerSchema;
import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.flatten.SchemaCodec;
import io.docmirror.flatten.TableSchema;
import io.docmirror.layout.FileDamage;
import io.docmirror.layout.MirrorSummary;
import io.docmirror.layout.MirrorTables;
import io.docmirror.mirror.MirrorErrorCode;
import io.docmirror.mirror.MirrorException;
import io.docmirror.mirror.source.Checkpoint;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.ManifestFile;
import org.apache.iceberg.ManifestFiles;
import org.apache.iceberg.ManifestReader;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.SeekableInputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;

/**
 * What a container's tables hold as of their last commit, read back when the mirror opens: the checkpoint and the
 * flattener's schema from the root table's snapshot summary, and each table's deletion vectors (from manifests). The
 * document index ({@link DocumentIndex}) is on disk and is used as it is when it reflects that commit, or brought to
 * it with the commit's recorded changes when a crash left it one behind; otherwise (after a backfill, an index lost)
 * it is rebuilt from the key columns of every live row.
 *
 * @param rootUuid the root table's Iceberg UUID, which names the index's commit with the batch; null before the
 *     first commit
 * @param indexRebuilt whether the document index had to be rebuilt from the tables' rows
 */
record TablesState(Map<String, Map<String, DeleteFile>> vectors, String flattenerSchema,
        String flattenerSchemaLocation, Checkpoint checkpoint, long batches, long lastEventTs,
        Map<String, String> summary, String rootUuid, boolean indexRebuilt) {
    private static final Logger log = LoggerFactory.getLogger(TablesState.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    static TablesState empty() {
        return new TablesState(Map.of(), null, null, Checkpoint.NONE, 0, 0, Map.of(), null, false);
    }

    /** How the document index names the commit it reflects: the root table and the batch. */
    static String indexMarker(String rootUuid, long batch) {
        return DocumentIndex.marker(rootUuid, batch);
    }

    /**
     * @param planner the threads the scans plan with ({@link io.docmirror.layout.IcebergWorkers})
     * @param rebuilding true for a rebuild: the schema may be of another configuration, and no row is read
     * @param index the container's document index, brought to the tables' last commit here
     */
    static TablesState load(Catalog catalog, ExecutorService planner, String container, FlattenerConfig config,
            boolean rebuilding, DocumentIndex index) {
        TableIdentifier rootIdentifier = MirrorTables.table(container, config.rootTable());
        Table root = catalog.tableExists(rootIdentifier) ? catalog.loadTable(rootIdentifier) : null;
        // A root table without a snapshot holds no commit: a REST catalog creates a batch's new tables before its
        // commit, and keeps them, empty, when the batch is abandoned.
        Snapshot snapshot = root == null ? null : root.currentSnapshot();
        if (snapshot == null) {
            index.unmark();
            index.clear();
            return empty();
        }
        Map<String, String> summary = snapshot.summary();
        String schemaLocation = summary.get(MirrorSummary.FLATTENER_SCHEMA);
        String schemaJson = schemaOf(root, snapshot);
        ContainerSchema schema = rebuilding
                ? SchemaCodec.fromJson(schemaJson)
                : SchemaCodec.fromJson(schemaJson, config);
        long batch = Long.parseLong(summary.get(MirrorSummary.BATCH));
        String marker = DocumentIndex.marker(root.uuid().toString(), batch);
        // A commit of a kind that does not index documents (a backfill, a scaled-out stream's) may come from another
        // process, under the number of a batch this index recorded before a crash and the catalog never took.
        boolean recordable = CommitKind.ofSummaryName(summary.get(MirrorSummary.COMMIT_KIND))
                .map(CommitKind::indexesDocuments).orElse(true);
        boolean indexCurrent = !rebuilding
                && (!index.kept() || index.catchUp(root.uuid().toString(), batch, recordable));
        if (!indexCurrent) {
            if (!rebuilding) {
                log.info("Rebuilding the document index of {} from its tables: it reflects {}, the tables are at {}",
                        container, index.marker().orElse("no commit"), marker);
            }
            index.unmark();
            index.clear();
        }
        Map<String, Map<String, DeleteFile>> vectors = new HashMap<>();
        for (TableSchema table : rebuilding ? List.<TableSchema>of() : schema.tables()) {
            TableIdentifier identifier = MirrorTables.table(container, table.name());
            if (catalog.tableExists(identifier)) {
                Table flattened = catalog.loadTable(identifier);
                vectors.put(table.name(), indexCurrent ? readVectors(flattened)
                        : readRows(flattened, planner, table, (key, location, position) ->
                                index.add(key, index.place(table.name(), location, position), table.isRoot())));
            }
        }
        if (!indexCurrent && !rebuilding) {
            index.mark(marker);
        }
        TableIdentifier history = MirrorTables.table(container, MirrorTables.history(config.rootTable()));
        if (catalog.tableExists(history)) {
            // The history's vectors too: a later deletion in a file that has one must merge with it, and a
            // compaction must leave out the rows it deletes.
            vectors.put(history.name(), readVectors(catalog.loadTable(history)));
        }
        return new TablesState(vectors, schemaJson, schemaLocation, checkpointOf(snapshot), batch,
                Long.parseLong(summary.getOrDefault(MirrorSummary.LAST_EVENT_TS, "0")), summary,
                root.uuid().toString(), !indexCurrent && !rebuilding);
    }

    /**
     * Hands the place of each of {@code table}'s live rows to {@code rows}, with its document's key (a root row's
     * {@code id} and {@code _pk}; a child row's {@code _id} and {@code _pk}); returns the table's deletion vectors.
     */
    static Map<String, DeleteFile> readRows(Table table, ExecutorService planner, TableSchema schema, RowSink rows) {
        Map<String, DeleteFile> vectors = new HashMap<>();
        try (CloseableIterable<FileScanTask> tasks = table.newScan().planWith(planner).planFiles()) {
            for (FileScanTask task : tasks) {
                DeleteFile vector = LiveRows.vectorOf(task);
                if (vector != null) {
                    vectors.put(vector.referencedDataFile(), vector);
                }
                String location = task.file().location();
                Optional<String> damage = FileDamage.of(table.io(), location, task.file().fileSizeInBytes());
                if (damage.isPresent()) {
                    // Its rows cannot be read, so neither can the mirror learn whose they are: the table fails its
                    // queries until `docmirror repair` rebuilds it, and the other tables go on.
                    log.error("The mirror of table {} has a damaged file ({}): `docmirror repair` mends it",
                            table.name(), damage.get());
                    continue;
                }
                DocumentKeys.read(table, schema.isRoot(), location, vector, (position, key) ->
                        rows.accept(key, location, position));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read the rows of " + table.name(), e);
        }
        return vectors;
    }

    /** Takes the live rows of a table, one at a time. */
    @FunctionalInterface
    interface RowSink {
        void accept(String documentKey, String dataFile, long position);
    }

    /**
     * The deletion vectors of a table, by data file: the live entries of its current snapshot's delete manifests,
     * without reading a data manifest or a data file (a planned scan would read every manifest and match each data
     * file with its deletes). Each data file has one vector at most: a commit that deletes more rows of a file
     * replaces its vector, and one that removes a file removes its vector too.
     */
    private static Map<String, DeleteFile> readVectors(Table table) {
        Map<String, DeleteFile> vectors = new HashMap<>();
        Snapshot current = table.currentSnapshot();
        if (current == null) {
            return vectors;
        }
        for (ManifestFile manifest : current.deleteManifests(table.io())) {
            try (ManifestReader<DeleteFile> reader = ManifestFiles.readDeleteManifest(manifest, table.io(),
                    table.specs())) {
                for (DeleteFile file : reader) {
                    if (file.referencedDataFile() == null) {
                        throw new MirrorException(MirrorErrorCode.UNREADABLE_MIRROR,
                                "The table " + table.name() + " has a delete file that is "
                                + "not a deletion vector of one data file: " + file.location());
                    }
                    vectors.put(file.referencedDataFile(), file);
                }
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot read the delete manifest " + manifest.path() + " of "
                        + table.name(), e);
            }
        }
        return vectors;
    }

    /** The flattener's schema (JSON) the root table's {@code snapshot} names. */
    static String schemaOf(Table root, Snapshot snapshot) {
        return read(root, snapshot.summary().get(MirrorSummary.FLATTENER_SCHEMA));
    }

    private static String read(Table table, String location) {
        if (location == null) {
            throw new MirrorException(MirrorErrorCode.UNREADABLE_MIRROR,
                    "The current snapshot of " + table.name() + " names no flattener "
                    + "schema (" + MirrorSummary.FLATTENER_SCHEMA + "): it was not written by docmirror's mirror");
        }
        try (SeekableInputStream in = table.io().newInputFile(location).newStream()) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read the flattener schema " + location, e);
        }
    }

    /** The checkpoint a root snapshot's summary records; {@link Checkpoint#NONE} for none (or no snapshot). */
    static Checkpoint checkpointOf(Snapshot snapshot) {
        String json = snapshot == null ? null : snapshot.summary().get(MirrorSummary.CHECKPOINT);
        if (json == null) {
            return Checkpoint.NONE;
        }
        try {
            return JSON.readValue(json, Checkpoint.class);
        } catch (JsonProcessingException e) {
            throw new MirrorException(MirrorErrorCode.UNREADABLE_MIRROR,
                    "The snapshot " + snapshot.snapshotId() + " holds a checkpoint that "
                    + "cannot be read: " + json, e);
        }
    }
}
