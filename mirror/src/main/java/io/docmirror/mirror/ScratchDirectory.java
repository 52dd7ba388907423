package io.docmirror.mirror;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static java.util.Objects.requireNonNull;

/**
 * The local directory where a container's writer keeps files on their way into its tables: a data file DuckDB
 * writes before it is copied into the table's storage, and what DuckDB spills to disk meanwhile. It is
 * {@code scratch/} in the container's mirror directory, and only the process holding the container's
 * {@link WriterLock} uses it. So whatever it holds when a writer takes the lock was left by one that died
 * mid-write (SIGKILL, a crash), and is removed then; a writer that closes removes it itself.
 */
public final class ScratchDirectory {
    static final String NAME = "scratch";

    private final Path path;

    private ScratchDirectory(Path path) {
        this.path = path;
    }

    /**
     * The scratch directory of the container whose mirror directory is {@code containerDirectory}, emptied of what a
     * writer that died left in it.
     *
     * @param lock the container's writer lock, held by the caller (only its holder may empty the directory)
     */
    public static ScratchDirectory takeOver(Path containerDirectory, WriterLock lock) {
        requireNonNull(lock, "lock is null: only the container's writer may empty its scratch directory");
        ScratchDirectory scratch = new ScratchDirectory(containerDirectory.resolve(NAME));
        scratch.remove();
        try {
            Files.createDirectories(scratch.spill());
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot create the scratch directory " + scratch.path, e);
        }
        return scratch;
    }

    /**
     * A scratch directory of its own in the system's temporary directory, for a writer that holds no container's
     * lock: a part of a backfill written on another machine ({@code PartWriter}). Its writer removes it when done.
     *
     * @param what whose it is, in the directory's name and in the error when it cannot be made
     */
    public static ScratchDirectory temporary(String what) {
        try {
            ScratchDirectory scratch = new ScratchDirectory(Files.createTempDirectory("docmirror-" + what + "-"));
            Files.createDirectories(scratch.spill());
            return scratch;
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot create a scratch directory for " + what + " in "
                    + System.getProperty("java.io.tmpdir"), e);
        }
    }

    /**
     * A new empty file here, for {@code what} (named in the error when it cannot be made).
     *
     * @param prefix how the file's name begins
     * @param suffix how the file's name ends
     */
    public Path newFile(String prefix, String suffix, String what) {
        try {
            return Files.createTempFile(path, prefix, suffix);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot create a file in " + path + " for " + what, e);
        }
    }

    /** Where DuckDB spills to disk ({@code temp_directory}) when a write does not fit its memory. */
    public Path spill() {
        return path.resolve("spill");
    }

    /** Removes the directory and everything in it; nothing when it is not there. */
    public void remove() {
        if (!Files.exists(path)) {
            return;
        }
        try {
            DirectoryTree.remove(path);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot remove the scratch directory " + path, e);
        }
    }

    @Override
    public String toString() {
        return path.toString();
    }
}
