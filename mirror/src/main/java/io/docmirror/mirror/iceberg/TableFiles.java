package io.docmirror.mirror.iceberg;

import io.docmirror.flatten.Row;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * The data files one writer writes into one table, one after the other: rows go into the current file, which closes
 * when the kind of rows changes (records or flattened rows), when the table's schema changes ({@link #roll}), or,
 * for files that last, when it holds {@code fileRows} rows. A batch writes through one ({@link TableChanges}); so
 * does each part of a backfill written elsewhere ({@link PartWriter}).
 */
final class TableFiles {
    /** The table as the writer has it now: its schema, location, file access and write properties. */
    private final Supplier<Table> table;
    private final String filePrefix;
    private final EncoderThreads encoders;
    private final DuckDbWriters writers;
    private final boolean lasting;
    private final long fileRows;
    /** How many rows the current data file holds. */
    private long rowsInFile;
    private final List<DataFile> added = new ArrayList<>();
    private final List<String> written = new ArrayList<>();
    /** The data file rows go into now; a new one when the kind of rows written changes. */
    private OpenDataFile writer;
    /** An empty record of {@link #templateSchema}, which {@link #newRecord} copies. */
    private Record template;
    private Schema templateSchema;

    /**
     * @param batch the batch's number, which starts the data files' names
     * @param encoders the threads Iceberg's Parquet writer encodes on ({@link DataFileWriter})
     * @param writers the DuckDB that encodes the flattened rows of files that last ({@link DuckDbFileWriter})
     * @param lasting whether the files last (a backfill's, a rebuild's, a repair's): flattened rows are then written
     *     by DuckDB, which reads its own files fastest, and records with dictionaries; a streamed batch's files are
     *     small, and the daemon waits for their commit: Iceberg's writer writes them plain, the quickest way, until
     *     compaction rewrites them with DuckDB
     * @param fileRows how many rows a file that lasts holds at most ({@code mirror.parquet.file-rows}): a backfill
     *     of a large container writes many files of a bounded size, not one per table
     */
    TableFiles(Supplier<Table> table, long batch, EncoderThreads encoders, DuckDbWriters writers, boolean lasting,
            long fileRows) {
        this(table, batch, "", encoders, writers, lasting, fileRows);
    }

    /**
     * @param writer the name of the writer, which the files' names carry after the batch's number (a scaled-out
     *     stream's writer compacts the files that carry its name, {@link ShardWriter#compact}); empty: none
     */
    TableFiles(Supplier<Table> table, long batch, String writer, EncoderThreads encoders, DuckDbWriters writers,
            boolean lasting, long fileRows) {
        this.table = table;
        this.encoders = encoders;
        this.writers = writers;
        this.lasting = lasting;
        this.fileRows = fileRows;
        this.filePrefix = String.format("%010d-%s%s", batch, writer.isEmpty() ? "" : writer + "-", UUID.randomUUID());
    }

    /**
     * An empty record of the table's current schema: a copy of one made once a schema, as making one from the schema
     * costs more than filling it.
     */
    Record newRecord() {
        Schema schema = table.get().schema();
        if (schema != templateSchema) {
            template = GenericRecord.create(schema);
            templateSchema = schema;
        }
        return template.copy();
    }

    /** Writes a row of the table's current schema into the current data file; returns its position. */
    long write(Record row) {
        rollWhenFull();
        return counted(icebergWriter().write(row));
    }

    /**
     * Writes a flattened row into the current data file, {@code records} making it a record, or vectors, of the
     * table's current schema; returns its position.
     */
    long write(Row row, RowRecords records) {
        rollWhenFull();
        if (!lasting) {
            return counted(icebergWriter().write(row, records));
        }
        RowVectors vectors = records.vectors();
        if (!(writer instanceof DuckDbFileWriter)) {
            open(new DuckDbFileWriter(table.get(), nextFileName(), vectors, writers));
        }
        return counted(((DuckDbFileWriter) writer).write(row, vectors));
    }

    /** Notes a row written at {@code position} of the current file; returns the position. */
    private long counted(long position) {
        rowsInFile = position + 1;
        return position;
    }

    private DataFileWriter icebergWriter() {
        if (!(writer instanceof DataFileWriter)) {
            Table current = table.get();
            open(new DataFileWriter(current, current.schema(), nextFileName(), encoders, lasting));
        }
        return (DataFileWriter) writer;
    }

    /** Closes a lasting file that holds {@code fileRows} rows: the row about to be written starts the next. */
    private void rollWhenFull() {
        if (writer != null && lasting && rowsInFile >= fileRows) {
            roll();
        }
    }

    /** Makes {@code file} the one rows go into, closing the one before. */
    private void open(OpenDataFile file) {
        roll();
        writer = file;
        written.add(file.location());
    }

    private String nextFileName() {
        return filePrefix + "-" + written.size() + ".parquet";
    }

    /** Adds a data file written elsewhere; it is among {@link #written} from now on. */
    void addWritten(DataFile file) {
        roll();
        if (!written.contains(file.location())) {
            written.add(file.location());
        }
        added.add(file);
    }

    /**
     * Adds a data file written elsewhere that is not the writer's to remove: a scaled-out stream's writer's, which
     * its engine's checkpoint holds until a commit takes it, however often a commit of it is tried.
     */
    void addBorrowed(DataFile file) {
        roll();
        added.add(file);
    }

    /**
     * A data file of the table's current schema named {@code fileName}, apart from the current one: rows written to
     * it take the positions 0, 1, 2, and so on, whatever it holds ({@link FileCopier}). It is among {@link #written}.
     */
    DataFileWriter separateFile(String fileName) {
        Table current = table.get();
        DataFileWriter file = new DataFileWriter(current, current.schema(), fileName, encoders, lasting);
        written.add(file.location());
        return file;
    }

    /** Whether the writer wrote {@code location} (and removes it when the writing is abandoned). */
    boolean wrote(String location) {
        return written.contains(location);
    }

    /** The data file {@link #write} wrote its last row to. */
    String currentFile() {
        return writer.location();
    }

    /** Closes the current data file: the next row starts a new one. */
    void roll() {
        if (writer != null) {
            added.add(writer.finish());
            writer = null;
        }
        rowsInFile = 0;
    }

    /** The data files finished so far. */
    List<DataFile> added() {
        return List.copyOf(added);
    }

    /** Takes a finished data file out of {@link #added}; returns whether it was there. */
    boolean drop(String location) {
        return added.removeIf(candidate -> candidate.location().equals(location));
    }

    /** Every data file written, finished or not, to remove when the writing is abandoned. */
    List<String> written() {
        return List.copyOf(written);
    }

    /** Closes what is open, for writing that is abandoned. */
    void abandon() {
        if (writer != null) {
            writer.close();
            writer = null;
        }
    }
}
