package io.docmirror.mirror.iceberg;

import io.docmirror.flatten.ContainerSchema;
import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.flatten.SchemaCodec;
import io.docmirror.flatten.TableSchema;
import io.docmirror.layout.FileDamage;
import io.docmirror.layout.MirrorSummary;
import io.docmirror.layout.MirrorTables;
import io.docmirror.mirror.source.Checkpoint;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
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
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;

/**
 * What a container's tables hold as of their last commit, read back when the mirror opens: the checkpoint and the
 * flattener's schema from the root table's snapshot summary, each table's deletion vectors, and where each document's
 * current rows are (its key columns read from every live row of every data file).
 */
record TablesState(DocumentRows rows, Map<String, Map<String, DeleteFile>> vectors, String flattenerSchema,
        String flattenerSchemaLocation, Checkpoint checkpoint, long batches, long lastEventTs,
        Map<String, String> summary) {
    private static final Logger log = LoggerFactory.getLogger(TablesState.class);

    static TablesState empty() {
        return new TablesState(new DocumentRows(), Map.of(), null, null, Checkpoint.NONE, 0, 0, Map.of());
    }

    /**
     * @param planner the threads the scans plan with ({@link io.docmirror.layout.IcebergWorkers})
     * @param rebuilding true for a rebuild: the schema may be of another configuration, and no row is read
     */
    static TablesState load(Catalog catalog, ExecutorService planner, String container, FlattenerConfig config,
            boolean rebuilding) {
        TableIdentifier rootIdentifier = MirrorTables.table(container, config.rootTable());
        if (!catalog.tableExists(rootIdentifier)) {
            return empty();
        }
        Table root = catalog.loadTable(rootIdentifier);
        Snapshot snapshot = root.currentSnapshot();
        Map<String, String> summary = snapshot.summary();
        String schemaLocation = summary.get(MirrorSummary.FLATTENER_SCHEMA);
        String schemaJson = read(root, schemaLocation);
        ContainerSchema schema = rebuilding
                ? SchemaCodec.fromJson(schemaJson)
                : SchemaCodec.fromJson(schemaJson, config);
        DocumentRows rows = new DocumentRows();
        Map<String, Map<String, DeleteFile>> vectors = new HashMap<>();
        Map<String, List<Long>> places = new HashMap<>();
        for (TableSchema table : rebuilding ? List.<TableSchema>of() : schema.tables()) {
            TableIdentifier identifier = MirrorTables.table(container, table.name());
            if (catalog.tableExists(identifier)) {
                vectors.put(table.name(), readRows(catalog.loadTable(identifier), planner, table, rows, places));
            }
        }
        places.forEach((key, list) -> rows.replace(key, list.stream().mapToLong(Long::longValue).toArray()));
        TableIdentifier history = MirrorTables.table(container, MirrorTables.history(config.rootTable()));
        if (catalog.tableExists(history)) {
            // The history's vectors too: a later deletion in a file that has one must merge with it, and a
            // compaction must leave out the rows it deletes.
            vectors.put(history.name(), readVectors(catalog.loadTable(history), planner));
        }
        return new TablesState(rows, vectors, schemaJson, schemaLocation,
                ContainerTables.checkpointOf(snapshot), Long.parseLong(summary.get(MirrorSummary.BATCH)),
                Long.parseLong(summary.getOrDefault(MirrorSummary.LAST_EVENT_TS, "0")), summary);
    }

    /**
     * Adds the places of {@code table}'s live rows to {@code places}, by document key (a root row's {@code id} and
     * {@code _pk}; a child row's {@code _id} and {@code _pk}); returns the table's deletion vectors.
     */
    private static Map<String, DeleteFile> readRows(Table table, ExecutorService planner, TableSchema schema,
            DocumentRows rows,
            Map<String, List<Long>> places) {
        Map<String, DeleteFile> vectors = new HashMap<>();
        String idColumn = schema.isRoot() ? "id" : "_id";
        Schema keys = table.schema().select(idColumn, "_pk");
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
                LiveRows.read(table.io(), location, vector, keys, (position, record) -> {
                    String key = DocumentRows.key((String) record.get(0), (String) record.get(1));
                    places.computeIfAbsent(key, k -> new ArrayList<>()).add(rows.place(schema.name(), location,
                            position));
                });
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read the rows of " + table.name(), e);
        }
        return vectors;
    }

    /**
     * The deletion vectors of a table whose rows no document index tracks (the history, which the analytical TTL
     * deletes rows of), by data file: from its manifests, without reading a data file.
     */
    private static Map<String, DeleteFile> readVectors(Table table, ExecutorService planner) {
        Map<String, DeleteFile> vectors = new HashMap<>();
        try (CloseableIterable<FileScanTask> tasks = table.newScan().planWith(planner).planFiles()) {
            for (FileScanTask task : tasks) {
                DeleteFile vector = LiveRows.vectorOf(task);
                if (vector != null) {
                    vectors.put(vector.referencedDataFile(), vector);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot list the deletion vectors of " + table.name(), e);
        }
        return vectors;
    }

    private static String read(Table table, String location) {
        if (location == null) {
            throw new IllegalStateException("The current snapshot of " + table.name() + " names no flattener "
                    + "schema (" + MirrorSummary.FLATTENER_SCHEMA + "): it was not written by docmirror's mirror");
        }
        try (SeekableInputStream in = table.io().newInputFile(location).newStream()) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read the flattener schema " + location, e);
        }
    }
}
