package io.docmirror.mirror.iceberg;

import io.docmirror.layout.CatalogConnection;
import io.docmirror.layout.CatalogSettings;
import io.docmirror.layout.MirrorCatalog;
import io.docmirror.mirror.MirrorErrorCode;
import io.docmirror.mirror.MirrorException;
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

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.HashMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Rows encoded on the encoder threads land in the order and at the positions written; a failure there is thrown; a
 * column of few distinct values gets a dictionary, one of distinct values does not.
 */
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
                .isInstanceOfSatisfying(MirrorException.class,
                        failure -> assertThat(failure.code()).isEqualTo(MirrorErrorCode.INTERNAL_ERROR))
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
        }).isInstanceOfSatisfying(MirrorException.class,
                failure -> assertThat(failure.code()).isEqualTo(MirrorErrorCode.INTERNAL_ERROR))
                .hasCauseInstanceOf(ClassCastException.class);
        // Closing it (a batch abandoned) reports the failure again rather than losing it.
        assertThatThrownBy(writer::close).hasCauseInstanceOf(ClassCastException.class);
    }

    @Test
    void aColumnOfFewValuesIsWrittenWithADictionaryAndAColumnOfDistinctOnesPlain() throws Exception {
        Schema orders = new Schema(Types.NestedField.optional(1, "id", Types.StringType.get()),
                Types.NestedField.optional(2, "status", Types.StringType.get()));
        Table ordersTable = connection.catalog().createTable(TableIdentifier.of("test", "orders"), orders);
        DataFileWriter writer = new DataFileWriter(ordersTable, orders, "orders.parquet", encoders, true);
        String[] statuses = {"new", "paid", "shipped"};
        // 20,000 distinct ids of 36 characters: 720 KB, past what a dictionary may hold.
        for (int n = 0; n < 20_000; n++) {
            GenericRecord order = GenericRecord.create(orders);
            order.setField("id", UUID.nameUUIDFromBytes(Integer.toString(n).getBytes(StandardCharsets.UTF_8))
                    .toString());
            order.setField("status", statuses[n % statuses.length]);
            writer.write(order);
        }
        String file = Path.of(URI.create(writer.finish().location())).toString();

        Map<String, String> encodings = new HashMap<>();
        try (Connection duckDb = DriverManager.getConnection("jdbc:duckdb:");
                Statement statement = duckDb.createStatement();
                ResultSet chunks = statement.executeQuery("SELECT path_in_schema, encodings, dictionary_page_offset "
                        + "FROM parquet_metadata('" + file + "')")) {
            while (chunks.next()) {
                encodings.merge(chunks.getString(1), chunks.getString(2) + " dictionary page at "
                        + chunks.getObject(3), (a, b) -> a + "; " + b);
            }
        }
        assertThat(encodings.get("status")).as("the status column's chunks").contains("DICTIONARY")
                .doesNotContain("at null");
        assertThat(encodings.get("id")).as("the id column's chunks").doesNotContain("DICTIONARY")
                .contains("at null");
    }

    private static Record number(long n) {
        GenericRecord record = GenericRecord.create(SCHEMA);
        record.setField("n", n);
        return record;
    }
}
