package io.docmirror.mirror.iceberg;

import io.docmirror.flatten.ContainerSchema;
import io.docmirror.flatten.Flattener;
import io.docmirror.flatten.Row;
import io.docmirror.flatten.SchemaCodec;
import io.docmirror.flatten.SystemColumn;
import io.docmirror.flatten.TableSchema;
import io.docmirror.layout.IcebergWorkers;
import io.docmirror.layout.MirrorSummary;
import io.docmirror.layout.MirrorTables;
import io.docmirror.store.changelog.ChangeEvent;
import io.docmirror.store.changelog.Operation;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static java.util.Objects.requireNonNull;

/**
 * One writer of a scaled-out stream (a Flink task): it applies the changes of its own documents, each flattened
 * against the schema the catalog last committed ({@link RemoteWriteTarget}), into data files that only its documents
 * go into, and notes which committed rows each change replaces. Where a document's rows are is not kept here: the
 * caller keeps it (in its engine's keyed state) and hands it in with each change.
 *
 * <p>A writer never changes the schema. A change whose document needs it to (a new column, a wider type, a number
 * or structure to learn) is not applied: the caller holds it, with every later change of its document, until the
 * decider of the schema (the committer, {@link ShardedBatch#decide}) has committed the schema it needs, and then
 * applies it with {@link #applyDecided}.
 *
 * <p>What it wrote between two checkpoints is {@link #finish}ed into a {@link WrittenShard} for the committer. Not
 * thread-safe.
 */
public final class ShardWriter implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ShardWriter.class);
    private final String container;
    /** The writer's name, which its files' names carry: it compacts those files only. */
    private final String writer;
    /** One encoder thread: the writer's task has a core, and its thread flattens. */
    private final EncoderThreads encoders;
    private RemoteWriteTarget target;
    private Flattener flattener;
    /** A flattener for changes whose schema was decided: its tallies are not kept (the decider counted them). */
    private Flattener decidedFlattener;
    private final Map<String, TableFiles> tables = new LinkedHashMap<>();
    private final Map<String, RowRecords> records = new HashMap<>();
    /** The files finished since the last {@link #finish}, by table. */
    private final Map<String, List<DataFile>> finished = new LinkedHashMap<>();
    /** The schema each finished file was written against, by its location. */
    private final Map<String, Integer> fileSchemas = new HashMap<>();
    private final Map<String, Map<String, List<Long>>> deletions = new HashMap<>();
    /** The committed files compacted since the last {@link #finish}, by table. */
    private final Map<String, List<String>> compacted = new HashMap<>();
    private final List<String> tallies = new ArrayList<>();
    /** The committed batch the writer writes against, and the one it wrote against first since its last shard. */
    private long base;
    private long shardBase;
    /** Of each table whose files a widening copied: its live files, by the tail of their names, and when. */
    private final Map<String, CopiedFiles> copies = new HashMap<>();
    private final Map<String, Long> copiedAt = new HashMap<>();
    private long events;
    private long lastEventTs;

    /**
     * The result of one change: whether it was applied, and the document's rows after it.
     *
     * @param applied false when the change needs the schema to change: nothing was written
     * @param rows the document's rows after the change (empty: it has none); null when not applied
     */
    public record Applied(boolean applied, List<RowPlace> rows) {
        static final Applied NEEDS_SCHEMA = new Applied(false, null);
    }

    /** Told where a document's row went when the writer compacted its files ({@link #compact}). */
    @FunctionalInterface
    public interface RowMoves {
        void moved(String documentKey, RowPlace from, RowPlace to);
    }

    /**
     * @param writer the writer's name, unique among the stream's writers and the same for the same documents (in
     *     Flink: its subtask, the parallelism and the maximum parallelism): the names of its files carry it, and it
     *     compacts the files that do, which only its documents' rows are in
     */
    public ShardWriter(RemoteWriteTarget target, String writer) {
        this.container = target.container();
        this.writer = requireNonNull(writer, "writer is null");
        this.encoders = new EncoderThreads(container, 1, 8);
        use(target);
        shardBase = base;
    }

    /**
     * Writes against {@code newer} tables from now on (the catalog committed a schema change): the files open now
     * are finished, and the tallies counted so far kept, for {@link #finish}.
     */
    public void retarget(RemoteWriteTarget newer) {
        requireNonNull(newer, "newer is null");
        if (!newer.container().equals(container)) {
            throw new IllegalArgumentException("A writer of " + container + " cannot write the tables of "
                    + newer.container());
        }
        closeFiles();
        use(newer);
    }

    private void use(RemoteWriteTarget newer) {
        target = newer;
        ContainerSchema schema = SchemaCodec.fromJson(newer.schema());
        flattener = new Flattener(schema);
        decidedFlattener = null;
        tables.clear();
        records.clear();
        for (String name : newer.tableNames()) {
            // A stream's files are small and soon compacted: Iceberg's writer writes them plain, not DuckDB.
            tables.put(name, new TableFiles(() -> newer.table(name), newer.batch(), writer, encoders, null, false,
                    newer.fileRows()));
        }
        for (TableSchema table : schema.tables()) {
            if (newer.has(table.name())) {
                Table committed = newer.table(table.name());
                records.put(table.name(), new RowRecords(table, committed.schema()));
                learnCopies(table.name(), committed);
            }
        }
        Table root = newer.has(schema.root().name()) ? newer.table(schema.root().name()) : null;
        Snapshot committed = root == null ? null : root.currentSnapshot();
        base = committed == null ? 0 : Long.parseLong(committed.summary().get(MirrorSummary.BATCH));
    }

    /** Lists the live files of a table whose files a widening copied since the writer last looked. */
    private void learnCopies(String name, Table table) {
        long copied = CopiedFiles.copiedAt(table);
        if (copied > 0 && copied != copiedAt.getOrDefault(name, 0L)) {
            copies.put(name, CopiedFiles.of(table, IcebergWorkers.callerRuns()));
            copiedAt.put(name, copied);
        }
    }

    /**
     * Where the rows {@code rows} are now: in the copies of the files a widening copied ({@link CopiedFiles}). What
     * a caller keeps may name files copied since; {@link #apply} finds the rows itself, and a caller matching a
     * {@link RowMoves} move with what it keeps asks here first.
     */
    public List<RowPlace> current(List<RowPlace> rows) {
        if (copies.isEmpty()) {
            return rows;
        }
        List<RowPlace> now = new ArrayList<>(rows.size());
        for (RowPlace row : rows) {
            CopiedFiles tableCopies = copies.get(row.table());
            now.add(tableCopies == null ? row : new RowPlace(row.table(), tableCopies.now(row.file()), row.position()));
        }
        return now;
    }

    /**
     * Applies one change of a document whose rows are {@code rows} now.
     *
     * @return the document's rows after it, or {@link Applied#applied} false when it needs the schema to change
     */
    public Applied apply(ChangeEvent event, List<RowPlace> rows) {
        return apply(event, rows, flattener);
    }

    /**
     * Applies a change whose document needed the schema to change, once the schema the writer has now was decided
     * with it ({@link ShardedBatch#decide}); not applied when it still needs a change (a schema decided without it).
     */
    public Applied applyDecided(ChangeEvent event, List<RowPlace> rows) {
        if (decidedFlattener == null) {
            decidedFlattener = new Flattener(SchemaCodec.fromJson(target.schema()));
        }
        Applied applied = apply(event, rows, decidedFlattener);
        if (applied.applied() || !target.has(history()) || event.operation() == Operation.DELETE) {
            return applied;
        }
        // It breaks a system property rule (a dead letter) or holds an array that turned out mixed: a walk that may
        // change the schema settles it, and must change nothing in a schema decided with it.
        decidedFlattener = null;
        FlattenedVersion version = FlattenedVersion.of(new Flattener(SchemaCodec.fromJson(target.schema())),
                container, event, partitionKey(event), event.documentJson().orElseThrow());
        if (version.result() != null && !version.result().schemaChanges().isEmpty()) {
            return Applied.NEEDS_SCHEMA;
        }
        return write(event, current(rows), version);
    }

    private Applied apply(ChangeEvent event, List<RowPlace> known, Flattener using) {
        requireNonNull(event, "event is null");
        requireNonNull(known, "known is null");
        if (!target.has(history())) {
            // No commit made the tables yet: the first commit's schema decides them.
            return Applied.NEEDS_SCHEMA;
        }
        List<RowPlace> rows = current(known);
        String partitionKey = partitionKey(event);
        if (event.operation() == Operation.DELETE) {
            count(event);
            history(event, partitionKey, event.ts() / 1000, null);
            // A TTL expiry in the store leaves the mirror's rows: the analytical TTL decides how long they stay.
            if (event.ttlExpired()) {
                return new Applied(true, rows);
            }
            delete(rows);
            return new Applied(true, List.of());
        }
        Optional<FlattenedVersion> version = FlattenedVersion.withinSchema(using, container, event, partitionKey,
                event.documentJson().orElseThrow());
        return version.isEmpty() ? Applied.NEEDS_SCHEMA : write(event, rows, version.get());
    }

    private Applied write(ChangeEvent event, List<RowPlace> rows, FlattenedVersion version) {
        if (version.deadLetter() != null && !target.has(deadLetters())) {
            // Tables mirrored before without a dead letter: the next commit makes the table.
            return Applied.NEEDS_SCHEMA;
        }
        count(event);
        history(event, partitionKey(event), version.documentTs(), event.documentJson().orElseThrow());
        if (version.deadLetter() != null) {
            TableFiles deadLetters = files(deadLetters());
            deadLetters.write(LogTables.deadLetter(deadLetters.newRecord(), version.deadLetter()));
            // A version that cannot be mirrored leaves the document's rows as they were.
            return new Applied(true, rows);
        }
        List<RowPlace> places = new ArrayList<>();
        for (Row row : version.result().rows()) {
            String table = row.table().name();
            TableFiles files = files(table);
            long position = files.write(row, records.get(table));
            places.add(new RowPlace(table, files.currentFile(), position));
        }
        delete(rows);
        return new Applied(true, places);
    }

    private void count(ChangeEvent event) {
        events++;
        lastEventTs = Math.max(lastEventTs, event.ts());
    }

    /**
     * The key a change's document is known by: the writers are chosen by it, and
     * {@link ContainerTables#forEachDocumentRow} names the documents by it.
     */
    public static String documentKey(ChangeEvent event) {
        return DocumentIndex.key(event.id(), partitionKey(event));
    }

    private static String partitionKey(ChangeEvent event) {
        return event.partitionKey().jsonText();
    }

    private void history(ChangeEvent event, String partitionKey, long documentTs, byte[] json) {
        TableFiles history = files(history());
        history.write(LogTables.history(history.newRecord(), event, partitionKey, documentTs, json));
    }

    private void delete(List<RowPlace> rows) {
        for (RowPlace row : rows) {
            deletions.computeIfAbsent(row.table(), table -> new HashMap<>())
                    .computeIfAbsent(row.file(), file -> new ArrayList<>()).add(row.position());
        }
    }

    private String rootTable() {
        return flattener.schema().root().name();
    }

    private String history() {
        return MirrorTables.history(rootTable());
    }

    private String deadLetters() {
        return MirrorTables.deadLetters(rootTable());
    }

    private TableFiles files(String table) {
        TableFiles files = tables.get(table);
        if (files == null) {
            throw new IllegalStateException("The tables of " + container + " written here have no table " + table);
        }
        return files;
    }

    /** Finishes the files open now, keeping them and the tallies counted for {@link #finish}. */
    private void closeFiles() {
        tables.forEach((name, files) -> {
            files.roll();
            if (!files.added().isEmpty()) {
                finished.computeIfAbsent(name, table -> new ArrayList<>()).addAll(files.added());
                int schema = target.table(name).schema().schemaId();
                files.added().forEach(file -> fileSchemas.put(file.location(), schema));
            }
        });
        tallies.add(SchemaCodec.toJson(flattener.schema()));
    }

    /**
     * Compacts the writer's own committed files of each flattened table and of the history, as {@code mirror run}
     * compacts a table ({@link CompactionPlan}: size tiers of {@code tierFiles} files, and files whose rows are worn
     * by deletes): their live rows (less those its changes since the last {@link #finish} replaced) go into new files,
     * which {@link #finish} hands over with the files they replace, for the next commit. Only this writer's documents'
     * rows are in its files, and only it deletes them, so nothing else moves them meanwhile. {@code moves} is told
     * where each document's row went, from where it is now ({@link #current}).
     *
     * <p>The caller compacts only when the tables it writes against hold every shard it handed over: a compaction
     * handed over but not yet committed must not be planned again.
     */
    public void compact(int tierFiles, RowMoves moves) {
        List<String> names = new ArrayList<>(records.keySet());
        if (target.has(history())) {
            names.add(history());
        }
        for (String name : names) {
            List<DataFile> own = new ArrayList<>();
            Map<String, DeleteFile> vectors = new HashMap<>();
            Table table = target.table(name);
            if (table.currentSnapshot() == null) {
                continue;
            }
            try (CloseableIterable<FileScanTask> tasks = table.newScan().planWith(IcebergWorkers.callerRuns())
                    .planFiles()) {
                for (FileScanTask task : tasks) {
                    if (CopiedFiles.tail(task.file().location()).startsWith(writer + "-")) {
                        own.add(task.file());
                        DeleteFile vector = LiveRows.vectorOf(task);
                        if (vector != null) {
                            vectors.put(task.file().location(), vector);
                        }
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot list the files of " + table.name(), e);
            }
            for (List<DataFile> group : CompactionPlan.of(own, vectors, tierFiles).rewrites()) {
                compact(name, group, vectors, moves);
            }
        }
    }

    /** Copies the live rows of {@code files} into new files of the table. */
    private void compact(String name, List<DataFile> files, Map<String, DeleteFile> vectors, RowMoves moves) {
        Table table = target.table(name);
        TableSchema flattened = records.containsKey(name) ? flattener.schema().findTable(name).orElseThrow() : null;
        String keyColumn = flattened == null ? null : SystemColumn.documentId(flattened.isRoot()).columnName();
        TableFiles into = new TableFiles(() -> table, target.batch(), writer, encoders, null, true, target.fileRows());
        Map<String, List<Long>> replaced = deletions.getOrDefault(name, new HashMap<>());
        for (DataFile file : files) {
            String location = file.location();
            // Rows replaced since the last shard are left out here, rather than deleted in a file that leaves.
            Set<Long> gone = new HashSet<>(replaced.getOrDefault(location, List.of()));
            replaced.remove(location);
            LiveRows.read(table.io(), location, vectors.get(location), table.schema(), (position, record) -> {
                if (gone.contains(position)) {
                    return;
                }
                long to = into.write(record);
                if (keyColumn != null) {
                    String key = DocumentIndex.key((String) record.getField(keyColumn),
                            (String) record.getField(SystemColumn.PARTITION_KEY.columnName()));
                    moves.moved(key, new RowPlace(name, location, position),
                            new RowPlace(name, into.currentFile(), to));
                }
            });
            compacted.computeIfAbsent(name, list -> new ArrayList<>()).add(location);
        }
        into.roll();
        log.info("Writer {} of {} compacted {} of its files of table {} into {}", writer, container, files.size(), name,
                into.added().size());
        finished.computeIfAbsent(name, list -> new ArrayList<>()).addAll(into.added());
        int schema = table.schema().schemaId();
        into.added().forEach(file -> fileSchemas.put(file.location(), schema));
    }

    /**
     * Finishes what the writer wrote since the last call, for the commit of a checkpoint; the writer goes on with new
     * files, against the same tables.
     */
    public WrittenShard finish() {
        closeFiles();
        Map<String, Map<String, long[]>> deleted = new HashMap<>();
        deletions.forEach((table, files) -> {
            Map<String, long[]> positions = new HashMap<>();
            files.forEach((file, list) -> positions.put(file, list.stream().mapToLong(Long::longValue).toArray()));
            deleted.put(table, positions);
        });
        WrittenShard shard = new WrittenShard(finished, fileSchemas, deleted, compacted, tallies, events, lastEventTs,
                shardBase);
        finished.clear();
        compacted.clear();
        fileSchemas.clear();
        shardBase = base;
        deletions.clear();
        tallies.clear();
        events = 0;
        lastEventTs = 0;
        use(target);
        return shard;
    }

    @Override
    public void close() {
        try {
            tables.values().forEach(TableFiles::abandon);
        } finally {
            encoders.close();
        }
    }
}
