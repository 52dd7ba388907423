package io.docmirror.mirror.iceberg;

import io.docmirror.flatten.ContainerSchema;
import io.docmirror.flatten.FlattenResult;
import io.docmirror.flatten.Flattener;
import io.docmirror.flatten.Row;
import io.docmirror.flatten.SchemaCodec;
import io.docmirror.flatten.SchemaScan;
import io.docmirror.flatten.TableSchema;
import io.docmirror.layout.MirrorTables;
import io.docmirror.mirror.ScratchDirectory;
import io.docmirror.store.changelog.ChangeEvent;
import io.docmirror.store.changelog.Operation;
import org.apache.iceberg.DataFile;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes one part of a backfill, on whichever machine it runs (a Spark executor): the part's documents, in order,
 * flattened from the schema the part starts from ({@code SchemaReplay}), so each value goes where one flattener of
 * the whole container would put it; written as rows of the tables' final schemas (a value of a column that widens
 * later is widened now, as a single-machine batch's copy would), with the history and the dead letters. The files go
 * straight into the tables' storage; {@link BackfillInParts} commits them with every other part's.
 *
 * <p>A writer that is closed before {@link #finish} removes every file it wrote.
 */
public final class PartWriter implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(PartWriter.class);

    private final RemoteWriteTarget target;
    private final String container;
    private final Flattener flattener;
    private final Map<String, TableFiles> tables = new LinkedHashMap<>();
    private final Map<String, RowRecords> records = new HashMap<>();
    private final TableFiles history;
    private final TableFiles deadLetters;
    private final ScratchDirectory scratch;
    private final DuckDbWriters writers;
    private final EncoderThreads encoders;
    /** The documents that changed the schema, as a scan keeps them. */
    private final List<SchemaScan.Kept> kept = new ArrayList<>();
    private long events;
    private long lastEventTs;
    /** Whether the part's start is a guess of the schema plan: a value its columns cannot hold is then no error. */
    private final boolean startGuessed;
    /** Why the part cannot be written from its guessed start; null while it can. */
    private RuntimeException unwritable;
    private boolean finished;

    /**
     * @param startSchema the schema the part starts from, without tallies ({@code SchemaPlan.startOf})
     * @param startGuessed whether that start is a guess of a plan not settled yet: the part is then written as far
     *     as its guessed columns hold its values, and otherwise only flattened, for what it tells the plan
     *     ({@link WrittenPart#complete})
     */
    public PartWriter(RemoteWriteTarget target, String startSchema, boolean startGuessed) {
        this.target = target;
        this.startGuessed = startGuessed;
        this.container = target.container();
        ContainerSchema end = SchemaCodec.fromJson(target.schema());
        this.flattener = new Flattener(SchemaCodec.fromJson(startSchema, end.config()));
        this.scratch = ScratchDirectory.temporary(container);
        this.writers = DuckDbWriters.open(container, scratch);
        // One encoder thread: the part's task has a core, and its thread flattens.
        this.encoders = new EncoderThreads(container, 1, 8);
        for (String name : target.tableNames()) {
            tables.put(name, new TableFiles(() -> target.table(name), target.batch(), encoders, writers, true,
                    target.fileRows()));
        }
        for (TableSchema table : end.tables()) {
            records.put(table.name(), new RowRecords(table, target.table(table.name()).schema()));
        }
        String root = end.root().name();
        this.history = files(MirrorTables.history(root));
        this.deadLetters = files(MirrorTables.deadLetters(root));
    }

    private TableFiles files(String table) {
        TableFiles files = tables.get(table);
        if (files == null) {
            throw new IllegalArgumentException("The backfill of " + container + " has no table " + table);
        }
        return files;
    }

    /**
     * Writes the next document of the part.
     *
     * @throws IllegalArgumentException for a delete: a backfill reads documents, not changes
     */
    public void add(ChangeEvent document) {
        if (document.operation() == Operation.DELETE) {
            throw new IllegalArgumentException("A backfill of " + container + " takes documents, not deletes: "
                    + document.id() + " at LSN " + document.lsn());
        }
        lastEventTs = Math.max(lastEventTs, document.ts());
        String partitionKey = document.partitionKey().jsonText();
        byte[] json = document.documentJson().orElseThrow();
        long walks = flattener.changingWalks();
        FlattenedVersion version = FlattenedVersion.of(flattener, container, document, partitionKey, json);
        if (flattener.changingWalks() != walks) {
            kept.add(new SchemaScan.Kept(events, container, partitionKey, document.lsn(), json));
        }
        events++;
        if (unwritable != null) {
            return;
        }
        try {
            write(document, partitionKey, json, version);
        } catch (RuntimeException e) {
            giveUpWriting(e);
        }
    }

    private void write(ChangeEvent document, String partitionKey, byte[] json, FlattenedVersion version) {
        history.write(LogTables.history(history.newRecord(), document, partitionKey, version.documentTs(), json));
        if (version.deadLetter() != null) {
            deadLetters.write(LogTables.deadLetter(deadLetters.newRecord(), version.deadLetter()));
            return;
        }
        FlattenResult result = version.result();
        for (Row row : result.rows()) {
            String table = row.table().name();
            files(table).write(row, records.get(table));
        }
    }

    /**
     * A part written from a guessed start whose values its guessed columns cannot hold: the guess was wrong, so the
     * part goes on being flattened only, its files removed. From an exact start that is a failure, thrown.
     */
    private void giveUpWriting(RuntimeException failure) {
        if (!startGuessed) {
            throw failure;
        }
        log.info("A part of the backfill of {} cannot be written from the start the schema plan guessed ({}); it is "
                + "flattened only, and written again from its exact start", container, failure.getMessage());
        unwritable = failure;
        List<RuntimeException> failures = new ArrayList<>();
        removeFiles(failures);
        failures.forEach(cleanup -> log.warn("Cannot remove a file of a part of the backfill of {} written from a "
                + "wrong guess; it is an orphan the next upkeep removes", container, cleanup));
    }

    /** Closes the part's files: what {@link BackfillInParts#add} takes. */
    public WrittenPart finish() {
        Map<String, List<DataFile>> written = new LinkedHashMap<>();
        if (unwritable == null) {
            try {
                tables.forEach((name, files) -> {
                    files.roll();
                    if (!files.added().isEmpty()) {
                        written.put(name, files.added());
                    }
                });
            } catch (RuntimeException e) {
                giveUpWriting(e);
                written.clear();
            }
        }
        finished = true;
        return new WrittenPart(written, SchemaCodec.toJson(flattener.schema()), kept, events, lastEventTs,
                unwritable == null);
    }

    /** Closes and removes every file the writer wrote, adding what fails to {@code failures}. */
    private void removeFiles(List<RuntimeException> failures) {
        tables.forEach((name, files) -> {
            try {
                files.abandon();
            } catch (RuntimeException e) {
                failures.add(e);
            }
            files.written().forEach(location -> {
                try {
                    target.table(name).io().deleteFile(location);
                } catch (RuntimeException e) {
                    failures.add(e);
                }
            });
        });
    }

    /** Releases the writer's threads and scratch space; before {@link #finish}, removes every file it wrote. */
    @Override
    public void close() {
        List<RuntimeException> failures = new ArrayList<>();
        if (!finished) {
            removeFiles(failures);
        }
        for (AutoCloseable resource : List.<AutoCloseable>of(encoders, writers, scratch::remove)) {
            try {
                resource.close();
            } catch (Exception e) {
                failures.add(e instanceof RuntimeException runtime ? runtime : new IllegalStateException(e));
            }
        }
        if (!failures.isEmpty()) {
            RuntimeException failure = new IllegalStateException("Cannot close the writer of a part of the backfill "
                    + "of " + container + " cleanly: " + failures.get(0).getMessage(), failures.get(0));
            failures.subList(1, failures.size()).forEach(failure::addSuppressed);
            throw failure;
        }
    }
}
