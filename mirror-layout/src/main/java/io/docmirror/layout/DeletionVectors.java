package io.docmirror.layout;

import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.deletes.PositionDeleteIndex;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.SeekableInputStream;

import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * Reads a deletion vector: the positions of a data file's deleted rows, one blob of a Puffin file (format version 3).
 * The mirror writes only deletion vectors, never equality or position-delete files.
 */
public final class DeletionVectors {
    private DeletionVectors() {
    }

    /** The deleted positions {@code vector} holds for its data file. */
    public static PositionDeleteIndex read(FileIO io, DeleteFile vector) {
        if (vector.format() != FileFormat.PUFFIN || vector.contentOffset() == null
                || vector.contentSizeInBytes() == null) {
            throw new IllegalArgumentException("Not a deletion vector: " + vector.location() + " ("
                    + vector.format() + "); the mirror's tables hold deletion vectors only");
        }
        byte[] blob = new byte[Math.toIntExact(vector.contentSizeInBytes())];
        try (SeekableInputStream in = io.newInputFile(vector.location()).newStream()) {
            in.seek(vector.contentOffset());
            int read = in.readNBytes(blob, 0, blob.length);
            if (read != blob.length) {
                throw new IllegalStateException("The deletion vector of " + vector.referencedDataFile() + " in "
                        + vector.location() + " is cut short: " + read + " of " + blob.length + " bytes");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read the deletion vector " + vector.location(), e);
        }
        return PositionDeleteIndex.deserialize(blob, vector);
    }
}
