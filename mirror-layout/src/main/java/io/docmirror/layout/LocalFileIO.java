package io.docmirror.layout;

import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;
import org.apache.iceberg.io.SeekableInputStream;
import org.apache.iceberg.io.SupportsPrefixOperations;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Iceberg's file access for a warehouse on the local file system, through java.nio: no Hadoop.
 *
 * <p>Iceberg's default, {@code HadoopFileIO}, would pull Hadoop's FileSystem into every reader of the tables (the SQL
 * endpoint included). Every file written here is forced to disk, with its directory, before {@code close} returns:
 * a commit that names a file can then rely on it surviving a power cut. Locations are {@code file:} URIs or absolute
 * paths.
 */
public final class LocalFileIO implements SupportsPrefixOperations {
    private static final long serialVersionUID = 1L;

    /** The local path of a location: a {@code file:} URI ({@code file:/x}, {@code file:///x}) or a plain path. */
    public static Path pathOf(String location) {
        if (location.startsWith("file:")) {
            return Path.of(URI.create(location));
        }
        Path path = Path.of(location);
        if (!path.isAbsolute()) {
            throw new IllegalArgumentException("Not an absolute local location: " + location);
        }
        return path;
    }

    /** Whether {@code location} is on the local file system: a {@code file:} URI or an absolute path. */
    public static boolean isLocal(String location) {
        return location.startsWith("file:") || location.startsWith("/");
    }

    /** The {@code file:} URI of a local path, as Iceberg records locations. */
    public static String locationOf(Path path) {
        return path.toAbsolutePath().normalize().toUri().toString();
    }

    @Override
    public InputFile newInputFile(String location) {
        return new LocalInputFile(location, pathOf(location));
    }

    @Override
    public OutputFile newOutputFile(String location) {
        return new LocalOutputFile(location, pathOf(location));
    }

    @Override
    public void deleteFile(String location) {
        try {
            Files.deleteIfExists(pathOf(location));
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot delete " + location, e);
        }
    }

    @Override
    public Iterable<FileInfo> listPrefix(String prefix) {
        Path root = pathOf(prefix);
        if (!Files.isDirectory(root)) {
            return List.of();
        }
        List<FileInfo> files = new ArrayList<>();
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path file : walk.filter(Files::isRegularFile).toList()) {
                BasicFileAttributes attributes = Files.readAttributes(file, BasicFileAttributes.class);
                // When it was last written, as an object store reports it (and Iceberg's HadoopFileIO): what orphan
                // removal ages files by.
                files.add(new FileInfo(locationOf(file), attributes.size(),
                        attributes.lastModifiedTime().toMillis()));
            }
        } catch (NoSuchFileException vanished) {
            // A file deleted while listing is simply not listed; the walk itself cannot resume, so list again.
            return listPrefix(prefix);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot list " + prefix, e);
        }
        return files;
    }

    @Override
    public void deletePrefix(String prefix) {
        for (FileInfo file : listPrefix(prefix)) {
            deleteFile(file.location());
        }
    }

    private record LocalInputFile(String location, Path path) implements InputFile {
        @Override
        public long getLength() {
            try {
                return Files.size(path);
            } catch (NoSuchFileException e) {
                throw new NotFoundException(e, "File does not exist: %s", location);
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot read the size of " + location, e);
            }
        }

        @Override
        public SeekableInputStream newStream() {
            try {
                return new ChannelInputStream(FileChannel.open(path, StandardOpenOption.READ));
            } catch (NoSuchFileException e) {
                throw new NotFoundException(e, "File does not exist: %s", location);
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot open " + location, e);
            }
        }

        @Override
        public boolean exists() {
            return Files.exists(path);
        }
    }

    private record LocalOutputFile(String location, Path path) implements OutputFile {
        @Override
        public PositionOutputStream create() {
            return open(StandardOpenOption.CREATE_NEW);
        }

        @Override
        public PositionOutputStream createOrOverwrite() {
            return open(StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING);
        }

        private PositionOutputStream open(StandardOpenOption... options) {
            try {
                Files.createDirectories(path.getParent());
                List<StandardOpenOption> all = new ArrayList<>(List.of(options));
                all.add(StandardOpenOption.WRITE);
                return new DurableOutputStream(path, FileChannel.open(path, all.toArray(StandardOpenOption[]::new)));
            } catch (FileAlreadyExistsException e) {
                // Also thrown when a parent "directory" is a file: that is no file of this name already there.
                if (!path.toString().equals(e.getFile())) {
                    throw new UncheckedIOException("Cannot create " + location + ": " + e.getFile()
                            + " is not a directory", e);
                }
                throw new AlreadyExistsException(e, "File already exists: %s", location);
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot create " + location, e);
            }
        }

        @Override
        public InputFile toInputFile() {
            return new LocalInputFile(location, path);
        }
    }

    private static final class ChannelInputStream extends SeekableInputStream {
        private final FileChannel channel;

        ChannelInputStream(FileChannel channel) {
            this.channel = channel;
        }

        @Override
        public long getPos() throws IOException {
            return channel.position();
        }

        @Override
        public void seek(long position) throws IOException {
            channel.position(position);
        }

        @Override
        public int read() throws IOException {
            ByteBuffer one = ByteBuffer.allocate(1);
            int read = channel.read(one);
            return read <= 0 ? -1 : one.get(0) & 0xFF;
        }

        @Override
        public int read(byte[] bytes, int offset, int length) throws IOException {
            if (length == 0) {
                return 0;
            }
            return channel.read(ByteBuffer.wrap(bytes, offset, length));
        }

        @Override
        public void close() throws IOException {
            channel.close();
        }
    }

    /** Writes through a buffer and a channel, and forces the file and its directory to disk on close. */
    private static final class DurableOutputStream extends PositionOutputStream {
        private static final int BUFFER_BYTES = 64 * 1024;

        private final Path path;
        private final FileChannel channel;
        private final ByteBuffer buffer = ByteBuffer.allocate(BUFFER_BYTES);
        /** Bytes written so far: Iceberg asks for the length after close too. */
        private long position;
        private boolean closed;

        DurableOutputStream(Path path, FileChannel channel) {
            this.path = path;
            this.channel = channel;
        }

        @Override
        public long getPos() {
            return position;
        }

        @Override
        public void write(int b) throws IOException {
            if (!buffer.hasRemaining()) {
                flush();
            }
            buffer.put((byte) b);
            position++;
        }

        @Override
        public void write(byte[] bytes, int offset, int length) throws IOException {
            if (length > buffer.remaining()) {
                flush();
            }
            if (length >= BUFFER_BYTES) {
                writeFully(ByteBuffer.wrap(bytes, offset, length));
            } else {
                buffer.put(bytes, offset, length);
            }
            position += length;
        }

        @Override
        public void flush() throws IOException {
            buffer.flip();
            writeFully(buffer);
            buffer.clear();
        }

        private void writeFully(ByteBuffer bytes) throws IOException {
            while (bytes.hasRemaining()) {
                channel.write(bytes);
            }
        }

        @Override
        public void close() throws IOException {
            if (closed) {
                return;
            }
            closed = true;
            try (channel) {
                flush();
                channel.force(true);
            }
            try (FileChannel directory = FileChannel.open(path.getParent(), StandardOpenOption.READ)) {
                directory.force(true);
            }
        }
    }
}
