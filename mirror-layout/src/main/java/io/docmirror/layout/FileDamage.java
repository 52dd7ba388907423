package io.docmirror.layout;

import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Optional;

/**
 * What is wrong with a data file that a table's metadata records: missing, or of another size (a truncated write, a
 * disk error). A query of the file's table fails while it is so.
 */
public final class FileDamage {
    private FileDamage() {
    }

    /**
     * The damage of the file at {@code location}, read through {@code io}, that should hold {@code recordedBytes};
     * empty when it is whole. A local file is looked at on disk ({@link #of(String, long)}), any other (an object
     * store's) through its FileIO.
     */
    public static Optional<String> of(FileIO io, String location, long recordedBytes) {
        if (io instanceof LocalFileIO) {
            return of(location, recordedBytes);
        }
        InputFile file = io.newInputFile(location);
        if (!file.exists()) {
            return Optional.of(location + " is missing");
        }
        long actual = file.getLength();
        return actual == recordedBytes ? Optional.empty()
                : Optional.of(location + " has " + actual + " bytes, its table's metadata records " + recordedBytes);
    }

    /** The damage of the local file at {@code location} that should hold {@code recordedBytes}; empty when whole. */
    public static Optional<String> of(String location, long recordedBytes) {
        Path path = LocalFileIO.pathOf(location);
        try {
            long actual = Files.size(path);
            return actual == recordedBytes ? Optional.empty()
                    : Optional.of(path + " has " + actual + " bytes, its table's metadata records " + recordedBytes);
        } catch (NoSuchFileException e) {
            return Optional.of(path + " is missing");
        } catch (IOException e) {
            return Optional.of(path + " cannot be read: " + e.getMessage());
        }
    }
}
