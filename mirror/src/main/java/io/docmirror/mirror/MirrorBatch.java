package io.docmirror.mirror;

import io.docmirror.flatten.FlattenException;
import io.docmirror.flatten.FlattenResult;
import io.docmirror.flatten.Flattener;
import io.docmirror.flatten.DeadLetter;
import io.docmirror.flatten.Row;
import io.docmirror.flatten.SchemaChange;
import io.docmirror.flatten.SourceDocument;
import io.docmirror.flatten.TableSchema;
import io.docmirror.mirror.manifest.DataFile;
import io.docmirror.mirror.parquet.DeadLetterFormat;
import io.docmirror.mirror.parquet.HistoryFormat;
import io.docmirror.mirror.parquet.ParquetDataFileWriter;
import io.docmirror.mirror.parquet.ParquetOptions;
import io.docmirror.mirror.parquet.TableFormat;
import io.docmirror.store.changelog.ChangeEvent;
import io.docmirror.store.changelog.Operation;
import org.apache.avro.generic.GenericRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executor;

/**
 * The files of one commit while they are written: each change is flattened and its rows stream into one delta
 * file per table (a new file whenever the table's schema grows, so each file has one schema), its raw form into a
 * history file, and a document that cannot be mirrored into a dead-letter file. Nothing is visible to readers until
 * the caller commits a manifest that lists {@link #finish()}'s files; {@link #close()} abandons the batch.
 */
final class MirrorBatch implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(MirrorBatch.class);

    private final Path containerDirectory;
    private final String container;
    private final long version;
    private final ParquetOptions options;
    private final Flattener flattener;
    private final Purpose purpose;
    private final Executor encoder;
    private final Map<String, TableWriter> openTables = new LinkedHashMap<>();
    private final Map<String, List<DataFile>> tableFiles = new LinkedHashMap<>();
    private ParquetDataFileWriter history;
    private ParquetDataFileWriter deadLetters;
    private int nextFile;
    private long events;
    private long lastEventTs;

    private record TableWriter(TableFormat format, ParquetDataFileWriter file) {
    }

    /** Why a batch is written, which decides the kind of its table files and whether it writes history. */
    enum Purpose {
        /** Streamed changes: delta files, and each change into the history. */
        STREAM,
        /** A backfill's snapshot, one current version per document: base files, and each version into the history. */
        BACKFILL,
        /** The history replayed under a new flattener configuration: delta files, and no history (it is the input). */
        REBUILD
    }

    /** What a finished batch wrote. */
    record Files(Map<String, List<DataFile>> tables, List<DataFile> history, List<DataFile> deadLetters, long events,
            long lastEventTs) {
        /** Every file of the batch: its tables', its history's and its dead letters'. */
        List<DataFile> all() {
            List<DataFile> files = new ArrayList<>();
            tables.values().forEach(files::addAll);
            files.addAll(history);
            files.addAll(deadLetters);
            return files;
        }
    }

    /** @param encoder where the batch's files encode and write their rows, beside the flattening */
    MirrorBatch(Path containerDirectory, String container, long version, ParquetOptions options, Flattener flattener,
            Purpose purpose, Executor encoder) {
        this.containerDirectory = containerDirectory;
        this.purpose = purpose;
        this.container = container;
        this.version = version;
        this.options = options;
        this.flattener = flattener;
        this.encoder = encoder;
    }

    long events() {
        return events;
    }

    void add(ChangeEvent event) {
        events++;
        lastEventTs = Math.max(lastEventTs, event.ts());
        String partitionKey = event.partitionKey().toString();
        if (event.operation() == Operation.DELETE) {
            writeHistory(event, partitionKey, event.ts() / 1000, null);
            // A TTL expiry in the store leaves the mirror's row alone: the analytical TTL decides how long it stays.
            if (!event.ttlExpired()) {
                writeTombstone(event, partitionKey);
            }
            return;
        }
        byte[] json = event.documentJson().orElseThrow();
        String documentJson = new String(json, StandardCharsets.UTF_8);
        FlattenResult result;
        try {
            result = flattener.flatten(new SourceDocument(container, partitionKey, event.lsn(), json));
        } catch (FlattenException e) {
            log.warn("Document {} of {} at LSN {} cannot be mirrored; it goes to the dead letters: {}",
                    event.id(), container, event.lsn(), e.getMessage(), e);
            writeHistory(event, partitionKey, event.ts() / 1000, documentJson);
            deadLetters().write(DeadLetterFormat.record(new DeadLetter(container, event.id(), event.lsn(),
                    e.getMessage(), documentJson)));
            return;
        }
        writeHistory(event, partitionKey, documentTs(result, event), documentJson);
        if (result.deadLetter().isPresent()) {
            deadLetters().write(DeadLetterFormat.record(result.deadLetter().get()));
            return;
        }
        rollChangedTables(result.schemaChanges());
        for (Row row : result.rows()) {
            TableWriter writer = tableWriter(row.table());
            writer.file().write(writer.format().record(row));
        }
    }

    private void writeHistory(ChangeEvent event, String partitionKey, long documentTs, String documentJson) {
        if (purpose != Purpose.REBUILD) {
            history().write(HistoryFormat.record(event, partitionKey, documentTs, documentJson));
        }
    }

    /**
     * The document's {@code _ts}, as its root row holds it; the event's commit second (the same instant, by the
     * change event's contract) when the document has none or went to the dead letters.
     */
    private static long documentTs(FlattenResult result, ChangeEvent event) {
        Object ts = result.rows().isEmpty() ? null : result.rows().get(0).value("_ts");
        return ts instanceof Long seconds ? seconds : event.ts() / 1000;
    }

    /** Closes every file; the caller lists them in the next manifest version. */
    Files finish() {
        for (String table : List.copyOf(openTables.keySet())) {
            finishTable(table);
        }
        List<DataFile> historyFiles = history == null ? List.of() : List.of(history.finish());
        List<DataFile> deadLetterFiles = deadLetters == null ? List.of() : List.of(deadLetters.finish());
        return new Files(tableFiles, historyFiles, deadLetterFiles, events, lastEventTs);
    }

    /** Abandons whatever was not finished: open files are closed and deleted. */
    @Override
    public void close() {
        RuntimeException failure = null;
        List<AutoCloseable> open = new ArrayList<>();
        openTables.values().forEach(writer -> open.add(writer.file()));
        if (history != null) {
            open.add(history);
        }
        if (deadLetters != null) {
            open.add(deadLetters);
        }
        for (AutoCloseable file : open) {
            try {
                file.close();
            } catch (Exception e) {
                if (failure == null) {
                    failure = new IllegalStateException("Cannot abandon the files of batch " + version + " of "
                            + container, e);
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        openTables.clear();
        if (failure != null) {
            throw failure;
        }
    }

    private void writeTombstone(ChangeEvent event, String partitionKey) {
        TableSchema root = flattener.schema().root();
        TableWriter writer = tableWriter(root);
        TableFormat format = writer.format();
        GenericRecord tombstone = format.emptyRecord();
        tombstone.put(format.indexOf("id"), event.id());
        tombstone.put(format.indexOf("_pk"), partitionKey);
        tombstone.put(format.indexOf("_lsn"), event.lsn());
        tombstone.put(format.indexOf("_ts"), event.ts() / 1000);
        tombstone.put(format.indexOf("_deleted"), true);
        writer.file().write(tombstone);
    }

    /** A table whose schema grew gets a new file: rows of the new shape never share a file with older ones. */
    private void rollChangedTables(List<SchemaChange> changes) {
        if (changes.isEmpty()) {
            return;
        }
        Set<String> changed = new HashSet<>();
        for (SchemaChange change : changes) {
            changed.add(change.table());
        }
        for (String table : changed) {
            if (openTables.containsKey(table)) {
                finishTable(table);
            }
        }
    }

    private TableWriter tableWriter(TableSchema table) {
        TableWriter writer = openTables.get(table.name());
        if (writer == null) {
            TableFormat format = TableFormat.of(table);
            ParquetDataFileWriter file = new ParquetDataFileWriter(containerDirectory,
                    newFilePath(MirrorLayout.tableDirectory(table.name())),
                    purpose == Purpose.BACKFILL ? DataFile.Kind.BASE : DataFile.Kind.DELTA, format.schema(),
                    format.indexOf("_lsn"), options, encoder);
            writer = new TableWriter(format, file);
            openTables.put(table.name(), writer);
        }
        return writer;
    }

    private void finishTable(String table) {
        TableWriter writer = openTables.remove(table);
        DataFile file = writer.file().finish().withNumberTypesOf(writer.format().columnEntries());
        tableFiles.computeIfAbsent(table, name -> new ArrayList<>()).add(file);
    }

    private ParquetDataFileWriter history() {
        if (history == null) {
            history = new ParquetDataFileWriter(containerDirectory, newFilePath(MirrorLayout.HISTORY_DIRECTORY),
                    DataFile.Kind.DELTA, HistoryFormat.SCHEMA, HistoryFormat.LSN_FIELD, options, encoder);
        }
        return history;
    }

    private ParquetDataFileWriter deadLetters() {
        if (deadLetters == null) {
            deadLetters = new ParquetDataFileWriter(containerDirectory,
                    newFilePath(MirrorLayout.DEAD_LETTER_DIRECTORY), DataFile.Kind.DELTA, DeadLetterFormat.SCHEMA,
                    DeadLetterFormat.LSN_FIELD, options, encoder);
        }
        return deadLetters;
    }

    private String newFilePath(String directory) {
        return directory + "/" + MirrorLayout.dataFileName(version, nextFile++);
    }
}
