package io.docmirror.mirror.iceberg;

import java.io.Serializable;

import static java.util.Objects.requireNonNull;

/**
 * Where one row of a document is: its table, the data file and the row's position in it. A scaled-out mirror's
 * writer keeps each of its documents' places in the state of its own engine ({@link ShardWriter}); the single
 * mirror keeps them in its {@link DocumentIndex}, one {@code long} each.
 *
 * @param table the flattened table's name
 * @param file the data file's location
 * @param position the row's position in the file
 */
public record RowPlace(String table, String file, long position) implements Serializable {
    public RowPlace {
        requireNonNull(table, "table is null");
        requireNonNull(file, "file is null");
        if (position < 0) {
            throw new IllegalArgumentException("A row's position cannot be negative: " + position);
        }
    }
}
