package io.docmirror.mirror.parquet;

import io.docmirror.mirror.manifest.DataFile;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Records written on encoder threads land in order, and a record the encoder cannot write fails the file. */
class ParquetDataFileWriterTest {
    private static final Schema SCHEMA = Schema.createRecord("row", null, "io.docmirror.test", false, List.of(
            new Schema.Field("_lsn", Schema.create(Schema.Type.LONG)),
            new Schema.Field("name", Schema.create(Schema.Type.STRING))));

    @TempDir
    Path directory;

    private final ExecutorService encoders = Executors.newFixedThreadPool(2);

    @AfterEach
    void stopEncoders() {
        encoders.shutdownNow();
    }

    @Test
    void rowsOfManyChunksLandInTheOrderTheyWereWritten() throws Exception {
        ParquetDataFileWriter writer = new ParquetDataFileWriter(directory, "t/rows.parquet", DataFile.Kind.DELTA,
                SCHEMA, 0, ParquetOptions.defaults(), encoders);
        for (long lsn = 1; lsn <= 10_000; lsn++) {
            writer.write(record(lsn, "row " + lsn));
        }
        DataFile file = writer.finish();

        assertThat(file.rows()).isEqualTo(10_000);
        assertThat(file.minLsn()).isEqualTo(1);
        assertThat(file.maxLsn()).isEqualTo(10_000);
        try (Connection duckdb = DriverManager.getConnection("jdbc:duckdb:");
             Statement statement = duckdb.createStatement();
             ResultSet rows = statement.executeQuery("SELECT count(*), "
                     + "count(*) FILTER (WHERE _lsn <> file_row_number + 1 OR name <> 'row ' || _lsn) "
                     + "FROM read_parquet('" + directory.resolve("t/rows.parquet") + "', file_row_number = true)")) {
            rows.next();
            assertThat(rows.getLong(1)).isEqualTo(10_000);
            assertThat(rows.getLong(2)).as("rows out of order or changed").isZero();
        }
    }

    @Test
    void aFileBeingWrittenIsNeverSeenByAReaderOfTheTableFolder() throws Exception {
        ParquetDataFileWriter writer = new ParquetDataFileWriter(directory, "t/rows.parquet", DataFile.Kind.DELTA,
                SCHEMA, 0, ParquetOptions.defaults(), Runnable::run);
        for (long lsn = 1; lsn <= 5000; lsn++) {
            writer.write(record(lsn, "row " + lsn));
        }
        assertThat(parquetFiles()).as("while it is written").isEmpty();

        writer.finish();

        assertThat(parquetFiles()).as("once it is finished").containsExactly("rows.parquet");
        try (Stream<Path> files = Files.list(directory.resolve("t"))) {
            assertThat(files.map(file -> file.getFileName().toString())).containsExactly("rows.parquet");
        }
    }

    /** What a glob over the table folder finds, as a user's {@code read_parquet('t/*.parquet')} would. */
    private List<String> parquetFiles() throws Exception {
        try (Stream<Path> files = Files.list(directory.resolve("t"))) {
            return files.map(file -> file.getFileName().toString())
                    .filter(name -> !name.startsWith(".") && name.endsWith(".parquet")).toList();
        }
    }

    @Test
    void aRecordTheEncoderCannotWriteFailsTheFileAndAbandoningItRemovesIt() throws Exception {
        ParquetDataFileWriter writer = new ParquetDataFileWriter(directory, "t/bad.parquet", DataFile.Kind.DELTA,
                SCHEMA, 0, ParquetOptions.defaults(), encoders);
        for (long lsn = 1; lsn <= 3000; lsn++) {
            GenericRecord record = record(lsn, "row " + lsn);
            if (lsn == 1500) {
                // A required column without a value: parquet-avro fails on the encoder's thread, after write()
                // returned.
                record.put(1, null);
            }
            writer.write(record);
        }

        assertThatThrownBy(writer::finish).hasMessageContaining("name");
        writer.close();
        try (Stream<Path> files = Files.list(directory.resolve("t"))) {
            assertThat(files).as("no file, staged or not, is left").isEmpty();
        }
    }

    private static GenericRecord record(long lsn, String name) {
        GenericData.Record record = new GenericData.Record(SCHEMA);
        record.put(0, lsn);
        record.put(1, name);
        return record;
    }
}
