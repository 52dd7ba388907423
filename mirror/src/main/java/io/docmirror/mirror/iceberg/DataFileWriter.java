package io.docmirror.mirror.iceberg;

import org.apache.iceberg.DataFile;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.parquet.GenericParquetWriter;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.parquet.Parquet;

import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * Writes one Parquet data file of a table, and says at which position each row landed: a deletion vector names rows
 * by these positions.
 */
final class DataFileWriter implements AutoCloseable {
    private final String location;
    private final DataWriter<Record> writer;
    private long rows;
    private boolean finished;

    /** A new data file of {@code table} for rows of {@code schema}, named {@code fileName} in its data folder. */
    DataFileWriter(Table table, Schema schema, String fileName) {
        this.location = table.locationProvider().newDataLocation(fileName);
        try {
            this.writer = Parquet.writeData(table.io().newOutputFile(location))
                    .schema(schema)
                    .withSpec(table.spec())
                    .setAll(table.properties())
                    .metricsConfig(MetricsConfig.forTable(table))
                    .createWriterFunc(GenericParquetWriter::create)
                    .build();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot create the data file " + location, e);
        }
    }

    String location() {
        return location;
    }

    /** Writes a row; returns its position in the file. */
    long write(Record row) {
        writer.write(row);
        return rows++;
    }

    long rows() {
        return rows;
    }

    /** Closes the file, durably; what a commit adds to the table. */
    DataFile finish() {
        close();
        return writer.toDataFile();
    }

    @Override
    public void close() {
        if (finished) {
            return;
        }
        finished = true;
        try {
            writer.close();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write the data file " + location, e);
        }
    }
}
