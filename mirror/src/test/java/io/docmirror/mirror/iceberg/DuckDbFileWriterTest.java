package io.docmirror.mirror.iceberg;

import io.docmirror.flatten.FlattenResult;
import io.docmirror.flatten.Flattener;
import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.flatten.Row;
import io.docmirror.flatten.SourceDocument;
import io.docmirror.flatten.TableSchema;
import io.docmirror.layout.CatalogConnection;
import io.docmirror.layout.CatalogSettings;
import io.docmirror.layout.MirrorCatalog;
import io.docmirror.mirror.MirrorErrorCode;
import io.docmirror.mirror.MirrorException;
import io.docmirror.mirror.ScratchDirectory;
import io.docmirror.mirror.WriterLock;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.LongStream;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Flattened rows written by DuckDB land in the order and at the positions written, every type reads back exactly
 * through Iceberg's own reader, and a value the file cannot hold fails the file with the column named.
 */
class DuckDbFileWriterTest {
    @TempDir
    Path directory;
    private CatalogConnection connection;
    private final Flattener flattener = Flattener.create(FlattenerConfig.defaults("docs").withDetectTimestamps(true));
    private WriterLock lock;
    private DuckDbWriters writers;
    private long lsn;

    @BeforeEach
    void openCatalog() {
        connection = MirrorCatalog.open(CatalogSettings.embedded(directory));
        ((SupportsNamespaces) connection.catalog()).createNamespace(Namespace.of("test"));
        lock = WriterLock.take(directory.resolve("test"), "test");
        writers = DuckDbWriters.open("test", ScratchDirectory.takeOver(directory.resolve("test"), lock));
    }

    @AfterEach
    void close() {
        writers.close();
        lock.close();
        connection.close();
    }

    @Test
    void rowsOfManyChunksLandInTheOrderAndAtThePositionsWritten() {
        List<Row> rows = new ArrayList<>();
        for (long n = 0; n < 5000; n++) {
            rows.addAll(flatten("{\"id\":\"d" + n + "\",\"n\":" + n + "}").rows());
        }
        Table table = table(flattener.schema().root());
        RowVectors vectors = new RowRecords(flattener.schema().root(), table.schema()).vectors();
        DuckDbFileWriter writer = new DuckDbFileWriter(table, "numbers.parquet", vectors, writers);
        List<Long> positions = new ArrayList<>();
        rows.forEach(row -> positions.add(writer.write(row, vectors)));
        DataFile file = writer.finish();
        table.newAppend().appendFile(file).commit();

        assertThat(positions).containsExactlyElementsOf(LongStream.range(0, 5000).boxed().toList());
        assertThat(scratchFiles()).as("the local file DuckDB wrote, once copied into the table").isEmpty();
        assertThat(file.recordCount()).isEqualTo(5000);
        List<Object> read = new ArrayList<>();
        LiveRows.read(table.io(), file.location(), null, table.schema(), (position, row) -> {
            assertThat(row.getField("n")).as("the row at position %d", position).isEqualTo(position);
            read.add(row.getField("n"));
        });
        assertThat(read).hasSize(5000);
    }

    @Test
    void valuesOfEveryTypeReadBackExactlyThroughIcebergsReaderAndDuckDb() throws Exception {
        // The second document widens "count" from BIGINT: the first one's row, made before, is widened on the way.
        List<Row> rows = new ArrayList<>(flatten("{\"id\":\"a\",\"flag\":true,\"count\":9007199254740993,"
                + "\"price\":12345678901234567890.123456789,\"at\":\"2024-02-29T23:59:59.123456Z\","
                + "\"tags\":[\"x\",null,\"\u00e9\u6f22\"],\"scores\":[1,null,3],\"meta\":{\"k\":\"v\"}}").rows());
        rows.addAll(flatten("{\"id\":\"b\",\"flag\":false,\"count\":0.5,\"price\":-0.000000001,"
                + "\"at\":\"1969-12-31T23:59:59.999999Z\",\"tags\":[],\"scores\":null}").rows());
        TableSchema schema = flattener.schema().root();
        Table table = table(schema);
        RowVectors vectors = new RowRecords(schema, table.schema()).vectors();
        DuckDbFileWriter writer = new DuckDbFileWriter(table, "types.parquet", vectors, writers);
        rows.forEach(row -> writer.write(row, vectors));
        table.newAppend().appendFile(writer.finish()).commit();

        List<Record> read = new ArrayList<>();
        LiveRows.read(table.io(), writer.location(), null, table.schema(), (position, row) -> read.add(row.copy()));
        Record a = read.get(0);
        Record b = read.get(1);
        assertThat(a.getField("flag")).isEqualTo(true);
        assertThat(b.getField("flag")).isEqualTo(false);
        assertThat(new BigDecimal(a.getField("count").toString())).isEqualByComparingTo("9007199254740993");
        assertThat(new BigDecimal(b.getField("count").toString())).isEqualByComparingTo("0.5");
        assertThat((BigDecimal) a.getField("price")).isEqualByComparingTo("12345678901234567890.123456789");
        assertThat((BigDecimal) b.getField("price")).isEqualByComparingTo("-0.000000001");
        assertThat(a.getField("at")).isEqualTo(OffsetDateTime.of(2024, 2, 29, 23, 59, 59, 123_456_000,
                ZoneOffset.UTC));
        assertThat(b.getField("at")).isEqualTo(OffsetDateTime.of(1969, 12, 31, 23, 59, 59, 999_999_000,
                ZoneOffset.UTC));
        assertThat(a.getField("tags")).isEqualTo(Arrays.asList("x", null, "\u00e9\u6f22"));
        assertThat(b.getField("tags")).isEqualTo(List.of());
        assertThat(((List<?>) a.getField("scores")).stream().map(score -> score == null ? null : score.toString())
                .toList()).isEqualTo(Arrays.asList("1", null, "3"));
        assertThat(b.getField("scores")).isNull();
        assertThat(a.getField("meta__k")).isEqualTo("v");
        assertThat(b.getField("meta__k")).isNull();

        // DuckDB reads the same values from the same file (the SQL endpoint's reader).
        try (Connection duckDb = DriverManager.getConnection("jdbc:duckdb:");
                Statement statement = duckDb.createStatement();
                ResultSet result = statement.executeQuery("SELECT count::VARCHAR, price::VARCHAR, tags::VARCHAR "
                        + "FROM read_parquet('" + Path.of(URI.create(writer.location())) + "') ORDER BY id")) {
            assertThat(result.next()).isTrue();
            assertThat(new BigDecimal(result.getString(1))).isEqualByComparingTo("9007199254740993");
            assertThat(new BigDecimal(result.getString(2))).isEqualByComparingTo("12345678901234567890.123456789");
            assertThat(result.getString(3)).isEqualTo("[x, NULL, \u00e9\u6f22]");
        }
    }

    @Test
    void aValueItsColumnCannotHoldFailsTheFileNamingTheColumnAndTable() {
        flatten("{\"id\":\"a\",\"n\":1}");
        TableSchema schema = flattener.schema().root();
        Table table = table(schema);
        RowVectors vectors = new RowRecords(schema, table.schema()).vectors();
        DuckDbFileWriter writer = new DuckDbFileWriter(table, "bad.parquet", vectors, writers);
        Object[] values = new Object[schema.columnCount()];
        for (int column = 0; column < values.length; column++) {
            values[column] = schema.columns().get(column).name().equals("n") ? "not a number" : null;
        }
        writer.write(Row.of(schema, values), vectors);

        assertThatThrownBy(writer::finish).isInstanceOfSatisfying(MirrorException.class,
                        failure -> assertThat(failure.code()).isEqualTo(MirrorErrorCode.INTERNAL_ERROR))
                .hasMessageContaining("column n of table docs").hasMessageContaining("not a number");
        writer.close();
        assertThat(Files.exists(Path.of(URI.create(writer.location())))).isFalse();
        assertThat(scratchFiles()).as("the local file of the failed write").isEmpty();
    }

    /** The files in the container's scratch directory, where DuckDB writes before a file is copied. */
    private List<Path> scratchFiles() {
        try (Stream<Path> files = Files.walk(directory.resolve("test").resolve("scratch"))) {
            return files.filter(Files::isRegularFile).toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private FlattenResult flatten(String json) {
        return flattener.flatten(new SourceDocument("docs", "p", ++lsn, json.getBytes(StandardCharsets.UTF_8)));
    }

    private Table table(TableSchema schema) {
        return connection.catalog().createTable(TableIdentifier.of("test", schema.name()),
                IcebergSchemas.of(schema));
    }
}
