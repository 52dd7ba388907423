package io.docmirror.mirror.manifest;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** fsync of files and directories: what makes a commit survive a power loss, not only a killed process. */
public final class DurableFiles {
    private DurableFiles() {
    }

    public static void fsync(Path file) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
            channel.force(true);
        }
    }

    /** Makes a rename or a new file in {@code directory} durable (Linux needs the directory itself fsynced). */
    public static void fsyncDirectory(Path directory) throws IOException {
        try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ)) {
            channel.force(true);
        }
    }
}
