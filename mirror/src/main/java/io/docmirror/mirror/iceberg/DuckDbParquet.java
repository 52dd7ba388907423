package io.docmirror.mirror.iceberg;

import io.docmirror.layout.TableView;
import io.docmirror.mirror.ScratchDirectory;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;
import org.apache.iceberg.parquet.ParquetUtil;
import org.apache.iceberg.types.Types;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * How a data file DuckDB writes becomes one of a table's Iceberg data files: DuckDB writes Parquet to a local
 * temporary file with each column's Iceberg field id, in the table's compression; the file is then copied into the
 * table's storage (which writes it durably, or not at all, on any of the mirror's storages), and Iceberg's column
 * statistics are read from its footer. Compaction ({@link DuckDbRewrite}) and flattened rows ({@link DuckDbFileWriter})
 * both write this way.
 *
 * <p>DuckDB's files read faster in DuckDB than Iceberg's own Parquet writer's: row groups of 122,880 rows, which
 * DuckDB scans in parallel (Iceberg's writer counts compressed bytes against its row-group size, and made a backfill's
 * file of 9 MB one row group), and pages cut where DuckDB's vectors are.
 */
final class DuckDbParquet {
    private DuckDbParquet() {
    }

    /** A new local file in {@code scratch} for DuckDB to write a data file of {@code table} into. */
    static Path localFile(ScratchDirectory scratch, Table table) {
        return scratch.newFile("data-", ".parquet", "a data file of " + table.name());
    }

    /** The options of DuckDB's {@code COPY ... TO} that write a data file of {@code table} with {@code schema}. */
    static String copyOptions(Table table, Schema schema) {
        String compression = table.properties().getOrDefault(TableProperties.PARQUET_COMPRESSION,
                TableProperties.PARQUET_COMPRESSION_DEFAULT).toLowerCase(Locale.ROOT);
        return "(FORMAT parquet, COMPRESSION " + TableView.literal(compression) + ", FIELD_IDS "
                + fieldIds(schema.columns()) + ")";
    }

    /** DuckDB's {@code FIELD_IDS} option for columns of these fields: a list's element has an id of its own. */
    private static String fieldIds(List<Types.NestedField> fields) {
        List<String> entries = new ArrayList<>();
        for (Types.NestedField field : fields) {
            String id = Integer.toString(field.fieldId());
            if (field.type().isListType()) {
                id = "{__duckdb_field_id: " + id + ", element: "
                        + ((Types.ListType) field.type()).elementId() + "}";
            }
            entries.add(TableView.literal(field.name()) + ": " + id);
        }
        return "{" + String.join(", ", entries) + "}";
    }

    /**
     * Copies the local file DuckDB wrote into the table's storage at {@code location} and deletes it; returns the
     * data file, with its column statistics.
     *
     * @param rows how many rows the file must hold
     * @param what what wrote the file, for the message when it holds another number of rows
     */
    static DataFile dataFile(Table table, Path written, String location, long rows, String what) {
        try {
            copy(written, table.io().newOutputFile(location));
        } finally {
            delete(written);
        }
        InputFile input = table.io().newInputFile(location);
        Metrics metrics = ParquetUtil.fileMetrics(input, MetricsConfig.forTable(table));
        if (metrics.recordCount() != rows) {
            throw new IllegalStateException(what + " of " + table.name() + " wrote " + metrics.recordCount()
                    + " rows to " + location + " where it was given " + rows);
        }
        return DataFiles.builder(table.spec())
                .withPath(location)
                .withFormat(FileFormat.PARQUET)
                .withFileSizeInBytes(input.getLength())
                .withMetrics(metrics)
                .build();
    }

    /** Copies the file into the table's storage, which writes it durably (or not at all). */
    private static void copy(Path from, OutputFile to) {
        byte[] buffer = new byte[1 << 20];
        try (var in = Files.newInputStream(from); PositionOutputStream out = to.create()) {
            for (int read = in.read(buffer); read >= 0; read = in.read(buffer)) {
                out.write(buffer, 0, read);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write the data file " + to.location(), e);
        }
    }

    static void delete(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot delete the temporary file " + file, e);
        }
    }
}
