package io.docmirror.mirror.iceberg;

import io.docmirror.layout.CatalogConnection;
import io.docmirror.layout.CatalogSettings;
import io.docmirror.layout.MirrorCatalog;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Rows encoded on the encoder threads land in the order and at the positions written; a failure there is thrown. */
class DataFileWriterTest {
    private static final Schema SCHEMA = new Schema(Types.NestedField.optional(1, "n", Types.LongType.get()));

    @TempDir
    Path directory;
    private CatalogConnection connection;
    private Table table;
    // One thread and one chunk waiting: a writer with more to hand over waits for the encoder.
    private final EncoderThreads encoders = new EncoderThreads("test", 1, 1);

    @BeforeEach
    void createTable() {
        connection = MirrorCatalog.open(CatalogSettings.embedded(directory));
        ((SupportsNamespaces) connection.catalog()).createNamespace(Namespace.of("test"));
        table = connection.catalog().createTable(TableIdentifier.of("test", "numbers"), SCHEMA);
    }

    @AfterEach
    void close() {
        encoders.close();
        connection.close();
    }

    @Test
    void rowsOfManyChunksLandInTheOrderAndAtThePositionsWritten() {
        DataFileWriter writer = new DataFileWriter(table, SCHEMA, "numbers.parquet", encoders, false);
        List<Long> positions = new ArrayList<>();
        for (long n = 0; n < 5000; n++) {
            positions.add(writer.write(number(n)));
        }
        DataFile file = writer.finish();
        table.newAppend().appendFile(file).commit();

        assertThat(positions).containsExactlyElementsOf(LongStream.range(0, 5000).boxed().toList());
        assertThat(file.recordCount()).isEqualTo(5000);
        List<Object> read = new ArrayList<>();
        LiveRows.read(table.io(), file.location(), null, SCHEMA, (position, row) -> {
            assertThat(row.getField("n")).as("the row at position %d", position).isEqualTo(position);
            read.add(row.getField("n"));
        });
        assertThat(read).hasSize(5000);
    }

    @Test
    void aRowThatCannotBeEncodedFailsTheFileWithItsCause() {
        DataFileWriter writer = new DataFileWriter(table, SCHEMA, "bad.parquet", encoders, false);
        writer.write(number(1));
        GenericRecord wrong = GenericRecord.create(SCHEMA);
        wrong.setField("n", "not a number");
        writer.write(wrong);

        assertThatThrownBy(writer::finish)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith("Cannot write the data file " + writer.location() + ": ")
                .hasCauseInstanceOf(ClassCastException.class);
    }

    @Test
    void aWriterWhoseEncodingFailedRefusesMoreRows() {
        DataFileWriter writer = new DataFileWriter(table, SCHEMA, "refused.parquet", encoders, false);
        GenericRecord wrong = GenericRecord.create(SCHEMA);
        wrong.setField("n", "not a number");
        writer.write(wrong);

        assertThatThrownBy(() -> {
            // The failure shows at the latest when the next chunk would be handed over.
            for (long n = 0; n < 10_000; n++) {
                writer.write(number(n));
            }
        }).isInstanceOf(IllegalStateException.class).hasCauseInstanceOf(ClassCastException.class);
        // Closing it (a batch abandoned) reports the failure again rather than losing it.
        assertThatThrownBy(writer::close).hasCauseInstanceOf(ClassCastException.class);
    }

    private static Record number(long n) {
        GenericRecord record = GenericRecord.create(SCHEMA);
        record.setField("n", n);
        return record;
    }
}
