package io.docmirror.mirror.manifest;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static java.util.Objects.requireNonNull;

/**
 * The manifest versions of one container's mirror, in {@code <container dir>/_manifest/v000000000042.json}. A
 * version is written to a temporary file, fsynced, renamed into place atomically and the directory fsynced: a
 * reader sees a whole version or none, and a committed version survives a crash or power loss.
 */
public final class ManifestStore {
    public static final String DIRECTORY = "_manifest";
    private static final Pattern VERSION_FILE = Pattern.compile("v(\\d{12})\\.json");
    private static final ObjectMapper JSON = new ObjectMapper()
            .enable(SerializationFeature.INDENT_OUTPUT)
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    private final Path containerDirectory;
    private final Path directory;

    public ManifestStore(Path containerDirectory) {
        this.containerDirectory = requireNonNull(containerDirectory, "containerDirectory is null");
        this.directory = containerDirectory.resolve(DIRECTORY);
    }

    /** The container's mirror directory, which the paths in a manifest are relative to. */
    public Path containerDirectory() {
        return containerDirectory;
    }

    /** The newest committed version; empty before the first commit. */
    public Optional<Manifest> latest() {
        return versions().stream().reduce((first, second) -> second).map(this::read);
    }

    /** Committed version numbers, oldest first. */
    public List<Long> versions() {
        if (!Files.isDirectory(directory)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(directory)) {
            return files.map(file -> VERSION_FILE.matcher(file.getFileName().toString()))
                    .filter(Matcher::matches)
                    .map(matcher -> Long.parseLong(matcher.group(1)))
                    .sorted()
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot list the manifest versions in " + directory, e);
        }
    }

    public Manifest read(long version) {
        Path file = directory.resolve(fileName(version));
        try {
            return JSON.readValue(file.toFile(), Manifest.class);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read manifest " + file, e);
        }
    }

    /**
     * Makes {@code manifest} the newest version, durably.
     *
     * @throws IllegalStateException when its version is not the next one: another writer committed meanwhile
     */
    public void commit(Manifest manifest) {
        Path target = directory.resolve(fileName(manifest.version()));
        boolean follows = manifest.version() == 1 || Files.exists(directory.resolve(fileName(manifest.version() - 1)));
        if (Files.exists(target) || !follows) {
            throw new IllegalStateException("Cannot commit manifest version " + manifest.version() + " of "
                    + manifest.container() + ": it is not the next version after the newest committed one"
                    + " (is another mirror writing " + containerDirectory + "?)");
        }
        Path temporary = directory.resolve("." + fileName(manifest.version()) + ".tmp");
        try {
            Files.createDirectories(directory);
            Files.write(temporary, JSON.writeValueAsBytes(manifest));
            DurableFiles.fsync(temporary);
            Files.move(temporary, target, StandardCopyOption.ATOMIC_MOVE);
            DurableFiles.fsyncDirectory(directory);
        } catch (IOException e) {
            deleteQuietlyAfterFailure(temporary, e);
            throw new UncheckedIOException("Cannot commit manifest version " + manifest.version() + " of "
                    + manifest.container() + " to " + target, e);
        }
    }

    /**
     * Removes the versions older than the newest {@code keep} that were also committed at or before
     * {@code keepAfter} (epoch milliseconds), and are older than {@code keepFrom}, the oldest version a reader holds
     * ({@link ReaderLeases}).
     *
     * @return how many versions were removed
     */
    public int prune(int keep, long keepAfter, long keepFrom) {
        List<Long> versions = versions();
        int removed = 0;
        for (Long version : versions.subList(0, Math.max(0, versions.size() - keep))) {
            if (version >= keepFrom || read(version).committedAt() > keepAfter) {
                break;
            }
            try {
                Files.deleteIfExists(directory.resolve(fileName(version)));
                removed++;
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot remove old manifest version " + version + " in " + directory, e);
            }
        }
        return removed;
    }

    private static void deleteQuietlyAfterFailure(Path temporary, IOException failure) {
        try {
            Files.deleteIfExists(temporary);
        } catch (IOException cleanup) {
            failure.addSuppressed(cleanup);
        }
    }

    private static String fileName(long version) {
        return String.format("v%012d.json", version);
    }
}
