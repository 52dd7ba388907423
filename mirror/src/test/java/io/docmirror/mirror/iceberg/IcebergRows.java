package io.docmirror.mirror.iceberg;

import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/** A table's current rows as Iceberg's own reader returns them (deletion vectors applied), for assertions. */
final class IcebergRows {
    private IcebergRows() {
    }

    /** The values of {@code columns}, one list per row, in the reader's order. */
    static List<List<Object>> read(Table table, String... columns) {
        List<List<Object>> rows = new ArrayList<>();
        try (CloseableIterable<Record> records = IcebergGenerics.read(table).build()) {
            for (Record record : records) {
                List<Object> row = new ArrayList<>();
                for (String column : columns) {
                    row.add(record.getField(column));
                }
                rows.add(row);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read " + table.name(), e);
        }
        return rows;
    }
}
