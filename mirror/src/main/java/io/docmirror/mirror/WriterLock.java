package io.docmirror.mirror;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The lock that makes one process the only writer of a container's mirror: an OS file lock on {@code .lock} in the
 * container's mirror directory, released when the holder closes it or dies.
 */
public final class WriterLock implements AutoCloseable {
    public static final String FILE = ".lock";

    private final String container;
    private final FileChannel channel;

    private WriterLock(String container, FileChannel channel) {
        this.container = container;
        this.channel = channel;
    }

    /**
     * Takes the lock of {@code container}'s mirror in {@code directory}.
     *
     * @throws MirrorException with {@code MIRROR_LOCKED} when another process (or this one) holds it
     */
    public static WriterLock take(Path directory, String container) {
        try {
            Files.createDirectories(directory);
            FileChannel channel = FileChannel.open(directory.resolve(FILE), StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE);
            FileLock lock;
            try {
                lock = channel.tryLock();
            } catch (OverlappingFileLockException heldInThisProcess) {
                lock = null;
            }
            if (lock == null) {
                channel.close();
                throw new MirrorException(MirrorErrorCode.MIRROR_LOCKED,
                        "Cannot mirror container " + container + ": another process is "
                        + "mirroring it (" + directory.resolve(FILE) + " is locked)");
            }
            return new WriterLock(container, channel);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot lock the mirror directory " + directory, e);
        }
    }

    @Override
    public void close() {
        try {
            channel.close();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot release the lock of the mirror of " + container, e);
        }
    }
}
