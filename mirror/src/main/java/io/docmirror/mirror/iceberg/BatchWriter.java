package io.docmirror.mirror.iceberg;

import io.docmirror.flatten.ContainerSchema;
import io.docmirror.flatten.SystemColumn;
import io.docmirror.flatten.DeadLetter;
import io.docmirror.flatten.FlattenResult;
import io.docmirror.flatten.Row;
import io.docmirror.flatten.SchemaChange;
import io.docmirror.flatten.TableSchema;
import io.docmirror.layout.DeletionVectors;
import io.docmirror.layout.IcebergWorkers;
import io.docmirror.layout.MirrorProperties;
import io.docmirror.layout.MirrorTables;
import io.docmirror.store.changelog.ChangeEvent;
import io.docmirror.store.changelog.Operation;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.catalog.TableIdentifier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.LongConsumer;

import static java.util.Objects.requireNonNull;

/**
 * The changes of one batch, before its commit: each change flattened into rows of new data files, and the rows it
 * replaces deleted (deletion vectors), found through the document index; the history and the dead letters
 * written; the tables' schemas evolved as the flattener's grows. {@link BatchCommit} makes them one catalog commit.
 *
 * <p>A document's committed rows are looked up in the index a few thousand documents at a time, which costs the index
 * a third of looking each up as it comes; where the batch put each document's rows is noted for the commit.
 */
final class BatchWriter {
    private static final Logger log = LoggerFactory.getLogger(BatchWriter.class);
    /** How many documents' committed rows a batch looks up in the index at once. */
    private static final int LOOKUPS_AT_ONCE = 4096;

    private final ContainerResources resources;
    private final CommittedTables committed;
    private final DocumentIndex rows;
    private final long number;
    private final CommitKind kind;
    private final CatalogBatch catalogBatch;
    private final Map<String, TableChanges> tables = new LinkedHashMap<>();
    private final Map<String, RowRecords> records = new HashMap<>();
    /** The documents whose rows the batch changed: where their rows are after it (empty: none). */
    private final Map<String, long[]> changedRows = new HashMap<>();
    /** Documents the batch changed whose committed rows are still to be deleted ({@link #deleteCommittedRows}). */
    private final List<String> committedRowsToDelete = new ArrayList<>();
    /** How many more documents have rows than before the batch (negative: fewer). */
    private long documentsAdded;
    /**
     * The data files a compaction rewrote with DuckDB, by location: where their rows went, which the documents'
     * places follow when the batch commits.
     */
    private final Map<String, DocumentIndex.Moved> moves = new HashMap<>();
    /** A scaled-out stream's widenings, by table ({@link FileCopier}). */
    private final Map<String, FileCopier> fileCopiers = new HashMap<>();
    /** A compaction rewritten off the daemon's thread that the batch's commit takes in; null when none. */
    private Compaction compaction;
    /** The compaction the batch put in place of its files ({@link #applyCompaction}); null when none. */
    private Compaction applied;
    private long events;
    private long lastEventTs;

    BatchWriter(ContainerResources resources, CommittedTables committed, long number, CommitKind kind) {
        this.resources = resources;
        this.committed = committed;
        this.rows = resources.rows();
        this.number = number;
        this.kind = kind;
        this.catalogBatch = resources.newCatalogBatch();
    }

    long number() {
        return number;
    }

    CommitKind kind() {
        return kind;
    }

    CatalogBatch catalogBatch() {
        return catalogBatch;
    }

    /** The batch's changes, by table. */
    Collection<TableChanges> tables() {
        return tables.values();
    }

    /** The names of the tables the batch changed. */
    Set<String> tableNames() {
        return tables.keySet();
    }

    boolean changes(String table) {
        return tables.containsKey(table);
    }

    /** How many changes the batch took. */
    long events() {
        return events;
    }

    /** The latest {@code _ts} of the batch's changes, in milliseconds; 0 when it has none. */
    long lastEventTs() {
        return lastEventTs;
    }

    /** The compaction the batch put in place of its files; null when none. */
    Compaction appliedCompaction() {
        return applied;
    }

    boolean rebuild() {
        return kind == CommitKind.REBUILD;
    }

    /** Whether the batch replaces the tables (a rebuild, or a backfill over a mirror) rather than adds to them. */
    boolean replacing() {
        return committed.rebuilding() && kind.mayReplaceTables();
    }

    /** Takes in a compaction rewritten off the daemon's thread: its files go in at the commit. */
    void takeIn(Compaction rewritten) {
        this.compaction = rewritten;
    }

    /**
     * Readies the batch for its commit: the committed rows still to delete are deleted, and a compaction taken in is
     * put in place of its files.
     */
    void finish() {
        deleteCommittedRows();
        if (compaction != null) {
            applyCompaction(compaction);
        }
    }

    /** Records in the document index where the batch's documents' rows are, before the catalog commit. */
    void prepareIndex() {
        List<String> leaving = new ArrayList<>();
        tables.values().forEach(table -> leaving.addAll(table.leavingFiles()));
        rows.prepare(number, changedRows, documentsAdded, moves, leaving);
    }

    void add(ChangeEvent event) {
        requireNonNull(event, "event is null");
        events++;
        lastEventTs = Math.max(lastEventTs, event.ts());
        String container = resources.container();
        String partitionKey = event.partitionKey().jsonText();
        String key = kind.indexesDocuments() ? DocumentIndex.key(event.id(), partitionKey) : null;
        if (event.operation() == Operation.DELETE) {
            history(event, partitionKey, event.ts() / 1000, null);
            // A TTL expiry in the store leaves the mirror's rows: the analytical TTL decides how long they stay.
            if (!event.ttlExpired() && key != null) {
                replaceRows(key, new long[0]);
            }
            return;
        }
        byte[] json = event.documentJson().orElseThrow();
        FlattenedVersion version = FlattenedVersion.of(committed.flattener(), container, event, partitionKey, json);
        history(event, partitionKey, version.documentTs(), json);
        if (version.deadLetter() != null) {
            deadLetter(version.deadLetter());
            return;
        }
        FlattenResult result = version.result();
        applySchemaChanges(result.schemaChanges());
        if (key == null) {
            for (Row row : result.rows()) {
                flattenedTable(row.table()).write(row, records.get(row.table().name()));
            }
            return;
        }
        long[] places = new long[result.rows().size()];
        for (int index = 0; index < places.length; index++) {
            Row row = result.rows().get(index);
            TableChanges table = flattenedTable(row.table());
            long position = table.write(row, records.get(row.table().name()));
            places[index] = rows.place(table.name(), table.currentFile(), position);
        }
        replaceRows(key, places);
    }

    /**
     * Flattens a document only to settle what the schema decides, for a scaled-out stream's writers, which apply it
     * themselves once the schema is committed ({@link ShardWriter#applyDecided}): the tables' schemas evolve with the
     * flattener's, and no row is written.
     */
    void decide(ChangeEvent event) {
        if (event.documentJson().isEmpty()) {
            // A delete, held behind a change of its document that needed a decision: it decides nothing.
            return;
        }
        byte[] json = event.documentJson().get();
        FlattenedVersion version = FlattenedVersion.of(committed.flattener(), resources.container(), event,
                event.partitionKey().jsonText(), json);
        if (version.result() != null) {
            applySchemaChanges(version.result().schemaChanges());
        }
    }

    /** Opens a table in the batch by name (flattened, the history or the dead letters), for files written elsewhere. */
    void openTable(String name) {
        String root = resources.rootTable();
        if (name.equals(MirrorTables.history(root))) {
            historyTable();
        } else if (name.equals(MirrorTables.deadLetters(root))) {
            deadLettersTable();
        } else {
            flattenedTable(name);
        }
    }

    /** Creates the history and the dead letters in the batch when the catalog does not have them yet. */
    void createLogTables() {
        for (String name : List.of(MirrorTables.history(resources.rootTable()),
                MirrorTables.deadLetters(resources.rootTable()))) {
            if (!catalogBatch.exists(resources.table(name))) {
                openTable(name);
            }
        }
    }

    /**
     * Takes on {@code schema}, decided elsewhere, as the batch's (a backfill written in parts): every table it has,
     * and the history and the dead letters, are opened in the batch with their final schemas, for the parts' data
     * files to be written against.
     */
    void adoptSchema(ContainerSchema schema) {
        committed.useSchema(schema);
        schema.tables().forEach(this::flattenedTable);
        historyTable();
        deadLettersTable();
    }

    /** The table as the batch has it (its schema changes staged), for writers elsewhere to write data files of. */
    Table stagedTable(String name) {
        return tables.get(name).table();
    }

    /** Adds data files of a part of the batch written elsewhere, with the count of changes it took. */
    void addWritten(Map<String, List<DataFile>> files, long partEvents, long partLastEventTs) {
        files.forEach((name, written) -> written.forEach(writtenTable(name)::addWritten));
        counted(partEvents, partLastEventTs);
    }

    /**
     * Adds what a scaled-out stream's writer wrote: its data files, which stay its own (a commit tried again takes
     * them again), each copied when it holds values of a column widened since the schema it was written against;
     * and the rows its changes replaced, each found in the file it is in now when the table's files were copied
     * since the commit the writer wrote against ({@link CopiedFiles}).
     */
    void addShard(WrittenShard shard) {
        shard.files().forEach((name, written) -> {
            TableChanges table = writtenTable(name);
            for (DataFile file : written) {
                table.addBorrowed(file);
                Schema writtenWith = table.table().schemas().get(shard.fileSchemas().get(file.location()));
                if (writtenWith.schemaId() != table.table().schema().schemaId()) {
                    fileCopier(table).copyIfWidened(file, writtenWith);
                }
            }
        });
        shard.compacted().forEach((name, files) -> {
            TableChanges table = writtenTable(name);
            CopiedFiles copies = copiesSince(shard, table);
            Map<String, DataFile> committedFiles = new HashMap<>();
            table.committedFiles().forEach(file -> committedFiles.put(file.location(), file));
            Map<String, DataFile> addedFiles = new HashMap<>();
            table.addedFiles().forEach(file -> addedFiles.put(file.location(), file));
            for (String file : files) {
                String now = copies == null ? file : copies.now(file);
                DataFile compacted = committedFiles.containsKey(now) ? committedFiles.get(now) : addedFiles.get(now);
                if (compacted == null) {
                    throw new IllegalStateException("A writer of " + resources.container() + " compacted " + file
                            + " of table " + name + ", which the table does not hold");
                }
                table.removeFile(compacted, committed.vectors(name).get(now));
            }
        });
        shard.deletions().forEach((name, files) -> {
            TableChanges table = flattenedTable(name);
            CopiedFiles copies = copiesSince(shard, table);
            files.forEach((file, positions) -> {
                String now = copies == null ? file : copies.now(file);
                for (long position : positions) {
                    table.delete(now, position);
                }
            });
        });
        counted(shard.events(), shard.lastEventTs());
    }

    /**
     * The table's live files by name tail, when a widening copied its files since the commit a writer's shard was
     * written against (its rows may be in the copies); null when none did.
     */
    private static CopiedFiles copiesSince(WrittenShard shard, TableChanges table) {
        return shard.base() < CopiedFiles.copiedAt(table.table()) ? CopiedFiles.of(table.liveFiles()) : null;
    }

    private TableChanges writtenTable(String name) {
        TableChanges table = tables.get(name);
        if (table == null) {
            throw new IllegalArgumentException("A part of the batch of " + resources.container()
                    + " wrote data files of table " + name + ", which the batch does not have");
        }
        return table;
    }

    private void counted(long partEvents, long partLastEventTs) {
        events += partEvents;
        lastEventTs = Math.max(lastEventTs, partLastEventTs);
    }

    /** Deletes every row of the document with this index key, root and child, as a streamed delete would. */
    void deleteDocument(String key) {
        replaceRows(key, new long[0]);
    }

    /** Deletes one entry of the history: the row at {@code position} of the history's data file {@code file}. */
    void deleteHistoryEntry(String file, long position) {
        historyTable().delete(file, position);
    }

    /**
     * The document's rows become {@code places}; the rows it had go. Rows it had earlier in the batch go now; its
     * committed rows are looked up later with other documents' ({@link #deleteCommittedRows}).
     */
    private void replaceRows(String key, long[] places) {
        if (rebuild()) {
            // A rebuild replays the whole history in one batch: its documents' rows go straight into the index,
            // emptied and unmarked for it, rather than into a map of the whole container.
            deleteRows(rows.set(key, places));
            return;
        }
        long[] previous = changedRows.put(key, places);
        if (previous == null) {
            committedRowsToDelete.add(key);
            documentsAdded += places.length > 0 ? 1 : 0;
            if (committedRowsToDelete.size() >= LOOKUPS_AT_ONCE) {
                deleteCommittedRows();
            }
        } else {
            deleteRows(previous);
            documentsAdded += (places.length > 0 ? 1 : 0) - (previous.length > 0 ? 1 : 0);
        }
    }

    /**
     * Deletes the committed rows of the documents the batch changed since the last call, looked up together. Runs
     * before anything reads which rows the batch deleted (a widening's or a compaction's copy, the commit).
     */
    private void deleteCommittedRows() {
        if (committedRowsToDelete.isEmpty()) {
            return;
        }
        // Taken first: deleting opens tables, and opening one evolves it, which comes back here.
        List<String> documents = List.copyOf(committedRowsToDelete);
        committedRowsToDelete.clear();
        for (long[] committedRows : rows.of(documents)) {
            deleteRows(committedRows);
            documentsAdded -= committedRows.length > 0 ? 1 : 0;
        }
    }

    private void deleteRows(long[] places) {
        for (long place : places) {
            long now = afterMoves(place);
            if (now >= 0) {
                DocumentIndex.DataFileRef file = rows.file(now);
                flattenedTable(file.table()).delete(file.location(), DocumentIndex.position(now));
            }
        }
    }

    /**
     * Where a committed row is now: a row of a file a widening copied earlier in the batch is at its copy (the
     * index learns that at the commit); -1 for a row that was not copied, being deleted already.
     */
    private long afterMoves(long place) {
        if (moves.isEmpty()) {
            return place;
        }
        DocumentIndex.Moved moved = moves.get(rows.file(place).location());
        if (moved == null) {
            return place;
        }
        int to = moved.newPositions()[Math.toIntExact(DocumentIndex.position(place))];
        return to < 0 ? -1 : rows.place(moved.table(), moved.newFile(), to);
    }

    /**
     * Puts a compaction into the batch: each group's new file in place of its files, with the rows deleted in them
     * since the compaction was planned (by earlier batches or by this one) deleted in the new file; a group not
     * rewritten yet (its files are on an object store) is copied row by row now. A group whose files left the table
     * meanwhile (a widened column's copy, in an earlier batch or this one) is dropped. Returns whether any group was
     * left to commit.
     */
    boolean applyCompaction(Compaction compaction) {
        deleteCommittedRows();
        boolean any = false;
        for (Compaction.TableRewrite rewrite : compaction.tables()) {
            Table committedTable = catalogBatch.table(resources.table(rewrite.name()));
            Set<String> live = new HashSet<>();
            TableChanges.liveFiles(committedTable, IcebergWorkers.callerRuns())
                    .forEach(file -> live.add(file.location()));
            TableChanges table = tables.get(rewrite.name());
            if (table != null) {
                table.leavingFiles().forEach(live::remove);
            }
            Map<String, DeleteFile> tableVectors = committed.vectors(rewrite.name());
            for (Compaction.Group group : rewrite.groups()) {
                DuckDbRewrite.Rewritten rewritten = compaction.rewritten(group);
                if (!group.files().stream().allMatch(file -> live.contains(file.location()))) {
                    log.info("A batch replaced files of {} while they were compacted; the compaction of {} files is "
                            + "dropped", rewrite.name(), group.files().size());
                    if (rewritten != null) {
                        resources.io().deleteFile(group.location());
                    }
                    continue;
                }
                if (table == null) {
                    table = open(rewrite.name(), committedTable.schema(), Map.of());
                    if (kind == CommitKind.COMPACTION) {
                        table.rewriteOnly();
                    }
                }
                any = true;
                if (rewritten == null) {
                    new RowCopier(table, rewrite.keyColumn(), rows, rowMoves(), !rebuild()).compact(group.files(),
                            tableVectors);
                    continue;
                }
                table.addWritten(rewritten.file());
                for (DataFile file : group.files()) {
                    int[] moved = rewritten.newPositions().get(file.location());
                    TableChanges changes = table;
                    LongConsumer deleteMovedRow = position -> {
                        int to = moved[Math.toIntExact(position)];
                        if (to >= 0) {
                            changes.delete(group.location(), to);
                        }
                    };
                    DeleteFile vector = tableVectors.get(file.location());
                    if (vector != null && !sameVector(vector, group.vectorsAtPlan().get(file.location()))) {
                        DeletionVectors.read(resources.io(), vector).forEach(deleteMovedRow);
                    }
                    table.forEachDeletedInBatch(file.location(), deleteMovedRow);
                    table.removeFile(file, vector);
                }
                if (rewrite.keyColumn() != null) {
                    rewritten.newPositions().forEach((file, positions) -> moves.put(file,
                            new DocumentIndex.Moved(rewrite.name(), group.location(), positions)));
                }
            }
        }
        if (any) {
            applied = compaction;
        }
        return any;
    }

    /** Whether two deletion vectors are the same blob (null: none). */
    private static boolean sameVector(DeleteFile vector, DeleteFile other) {
        return other != null && vector.location().equals(other.location())
                && Objects.equals(vector.contentOffset(), other.contentOffset());
    }

    private void history(ChangeEvent event, String partitionKey, long documentTs, byte[] documentJson) {
        if (rebuild()) {
            // The history is what a rebuild replays: it stays as it is.
            return;
        }
        TableChanges history = historyTable();
        history.write(LogTables.history(history.newRecord(), event, partitionKey, documentTs, documentJson));
    }

    /** The batch's changes of the history. */
    TableChanges historyTable() {
        return logTable(MirrorTables.history(resources.rootTable()), LogTables.HISTORY, MirrorProperties.HISTORY);
    }

    private void deadLetter(DeadLetter deadLetter) {
        TableChanges deadLetters = deadLettersTable();
        deadLetters.write(LogTables.deadLetter(deadLetters.newRecord(), deadLetter));
    }

    /** The batch's changes of the dead letters. */
    TableChanges deadLettersTable() {
        return logTable(MirrorTables.deadLetters(resources.rootTable()), LogTables.DEAD_LETTERS,
                MirrorProperties.DEAD_LETTERS);
    }

    /** Makes the Iceberg tables' schemas hold what the flattener's schema holds now. */
    private void applySchemaChanges(List<SchemaChange> changes) {
        for (SchemaChange change : changes) {
            TableSchema schema = committed.flattener().schema().findTable(change.table()).orElseThrow();
            TableChanges table = tables.get(schema.name());
            if (table == null) {
                flattenedTable(schema);
            } else if (evolve(table, schema)) {
                table.roll();
                records.put(schema.name(), new RowRecords(schema, table.table().schema()));
            }
        }
    }

    /** Brings the Iceberg table's schema to the flattener's ({@link SchemaEvolution}). */
    private boolean evolve(TableChanges table, TableSchema schema) {
        deleteCommittedRows();
        if (kind == CommitKind.SHARDED_STREAM) {
            // The writers keep where their documents' rows are: a widening's copies keep every row's position.
            return SchemaEvolution.evolve(table, schema, (before, after, widened, vectors) ->
                    fileCopier(table).widen(before, widened, vectors), committed.vectors(table.name()));
        }
        RowCopier copier = new RowCopier(table, SystemColumn.documentId(schema.isRoot()).columnName(), rows,
                rowMoves(), !rebuild());
        boolean evolved = SchemaEvolution.evolve(table, schema, copier::widen, committed.vectors(table.name()));
        // A file an earlier widening copied rows into, copied again now (a second widening in one batch): its rows
        // moved on row by row, so their documents' places are in the batch's changes already.
        if (!moves.isEmpty()) {
            Set<String> leaving = Set.copyOf(table.leavingFiles());
            moves.values().removeIf(moved -> leaving.contains(moved.newFile()));
        }
        return evolved;
    }

    /** The table's position-keeping copier in this batch: one, so that its copies' names differ. */
    private FileCopier fileCopier(TableChanges table) {
        return fileCopiers.computeIfAbsent(table.name(), name -> new FileCopier(table, number));
    }

    /** How the places of the rows a widening or a compaction copies follow them. */
    private RowCopier.RowMoves rowMoves() {
        return new RowCopier.RowMoves() {
            @Override
            public void moved(String documentKey, long from, long to) {
                BatchWriter.this.moved(documentKey, from, to);
            }

            @Override
            public void fileMoved(String file, DocumentIndex.Moved moved) {
                moves.put(file, moved);
            }
        };
    }

    /** A row of a document moved (a widening copied it): its place follows. */
    private void moved(String key, long from, long to) {
        long[] places = changedRows.containsKey(key) ? changedRows.get(key).clone()
                : Arrays.stream(rows.of(key)).map(this::afterMoves).toArray();
        for (int index = 0; index < places.length; index++) {
            if (places[index] == from) {
                places[index] = to;
            }
        }
        if (rebuild()) {
            rows.set(key, places);
        } else {
            changedRows.put(key, places);
        }
    }

    /** The batch's changes of a flattened table, creating the table when the catalog does not have it. */
    TableChanges flattenedTable(TableSchema schema) {
        TableChanges table = tables.get(schema.name());
        if (table == null) {
            Map<String, String> properties = new HashMap<>();
            properties.put(MirrorProperties.TABLE_ROLE, schema.isRoot() ? MirrorProperties.ROOT
                    : MirrorProperties.CHILD);
            properties.put(MirrorProperties.JSON_PATH, schema.jsonPath().toString());
            schema.parent().ifPresent(parent -> properties.put(MirrorProperties.PARENT, parent));
            properties.put(MirrorProperties.COLUMN_ROLES, ContainerTables.columnRoles(schema));
            table = open(schema.name(), IcebergSchemas.of(schema), properties);
            evolve(table, schema);
            records.put(schema.name(), new RowRecords(schema, table.table().schema()));
        }
        return table;
    }

    private TableChanges flattenedTable(String name) {
        return flattenedTable(committed.flattener().schema().findTable(name).orElseThrow(() ->
                new IllegalStateException("The mirror of " + resources.container() + " has rows in table " + name
                        + ", which its schema lacks")));
    }

    private TableChanges logTable(String name, Schema schema, String role) {
        TableChanges table = tables.get(name);
        return table != null ? table : open(name, schema, Map.of(MirrorProperties.TABLE_ROLE, role));
    }

    /** The batch's changes of a table; a table the catalog does not have is created with {@code properties}. */
    private TableChanges open(String name, Schema schema, Map<String, String> properties) {
        TableIdentifier identifier = resources.table(name);
        boolean exists = catalogBatch.exists(identifier);
        // A rebuild replays the history, which it keeps; a backfill over a mirror replaces it too.
        boolean replaced = exists && replacing()
                && !(rebuild() && name.equals(MirrorTables.history(resources.rootTable())));
        Table base = exists && !replaced ? catalogBatch.table(identifier) : null;
        Transaction transaction;
        if (replaced) {
            transaction = catalogBatch.replace(identifier, schema, resources.tableProperties(properties));
        } else if (exists) {
            transaction = base.newTransaction();
        } else {
            transaction = catalogBatch.create(identifier, schema, MirrorTables.tableLocation(
                    resources.settings().warehouse(), resources.container(), name),
                    resources.tableProperties(properties));
        }
        TableChanges table = new TableChanges(identifier, transaction, base,
                replaced ? Map.of() : committed.vectors(name), number, resources.catalog().workers(),
                resources.encoders(), resources.writers(), !kind.streamed(),
                resources.config().parquet().fileRows());
        tables.put(name, table);
        return table;
    }

    /**
     * Abandons the batch's changes: what the index recorded for it goes, and every file it wrote (a compaction's
     * taken in or not, which the next upkeep plans again) is removed.
     */
    void abandon() {
        // The catalog did not take the batch (or it was never sent): what the index recorded for it goes.
        rows.discard(number);
        RuntimeException failure = null;
        for (TableChanges table : tables.values()) {
            try {
                table.abandon();
            } catch (RuntimeException e) {
                // Its file failed to encode or close: every table's files are removed all the same.
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
            for (String file : table.writtenFiles()) {
                rows.forget(file);
                resources.io().deleteFile(file);
            }
        }
        if (compaction != null) {
            compaction.writtenFiles().forEach(resources.io()::deleteFile);
        }
        if (failure != null) {
            throw failure;
        }
    }
}
