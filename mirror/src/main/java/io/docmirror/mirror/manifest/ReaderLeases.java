package io.docmirror.mirror.manifest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static java.util.Objects.requireNonNull;

/**
 * The manifest versions readers are reading, so that the mirror keeps their files until they are done: a reader
 * (a SQL catalog generation, a reconcile, a compaction) takes a lease on the version it reads, and the mirror removes
 * neither that version's manifest nor the files it lists while the lease is held. A lease is a file in
 * {@code <container>/_readers/} naming the version and the process that holds it; a lease whose process is gone (killed,
 * say) no longer counts, and is removed by the next look. So files that compactions replaced can go as soon as no
 * reader needs them, instead of after a time long enough for any query.
 *
 * <p>A reader takes its lease after reading the version's manifest and then checks that the manifest is still there:
 * if the mirror removed it meanwhile, the reader drops the lease and reads the newest version again. The mirror removes
 * a replaced file only after it has removed the manifests that list it and looked at the leases again, so either it
 * sees the reader's lease, or the reader's check sees the manifest gone.
 *
 * <p>Leases are told apart by process, so every reader and the mirror must share one machine's view of processes:
 * the mirror directory is local, as it is today.
 */
public final class ReaderLeases {
    public static final String DIRECTORY = "_readers";
    private static final Pattern LEASE_FILE = Pattern.compile("v(\\d{12})-[0-9a-f-]+\\.lease");
    private static final ObjectMapper JSON = new ObjectMapper();

    /** How often the newest version is read again when the mirror removes it before the lease on it holds. */
    private static final int ATTEMPTS = 10;

    private final Path containerDirectory;
    private final Path directory;

    public ReaderLeases(Path containerDirectory) {
        this.containerDirectory = requireNonNull(containerDirectory, "containerDirectory is null");
        this.directory = containerDirectory.resolve(DIRECTORY);
    }

    /** A manifest version read, and a lease that keeps its files while it is open. */
    public record HeldVersion(Manifest manifest, Lease lease) implements AutoCloseable {
        @Override
        public void close() {
            lease.close();
        }
    }

    /**
     * Reads the newest committed version and takes a lease on it; a version the mirror removed between the read and
     * the lease is read again as the newest then. Empty when nothing is committed.
     */
    public Optional<HeldVersion> holdNewest() {
        ManifestStore store = new ManifestStore(containerDirectory);
        for (int attempt = 1; ; attempt++) {
            Optional<Manifest> newest;
            try {
                newest = store.latest();
            } catch (UncheckedIOException removedWhileRead) {
                if (attempt == ATTEMPTS) {
                    throw removedWhileRead;
                }
                continue;
            }
            if (newest.isEmpty()) {
                return Optional.empty();
            }
            Lease lease = take(newest.get().version());
            if (store.versions().contains(newest.get().version())) {
                return Optional.of(new HeldVersion(newest.get(), lease));
            }
            lease.close();
            if (attempt == ATTEMPTS) {
                throw new IllegalStateException("Cannot hold a version of " + containerDirectory + ": the mirror "
                        + "removed each one read, " + ATTEMPTS + " times in a row");
            }
        }
    }

    /** A held lease; closing it lets the mirror remove what only its version needs. */
    public final class Lease implements AutoCloseable {
        private final Path file;
        private final long version;

        private Lease(Path file, long version) {
            this.file = file;
            this.version = version;
        }

        public long version() {
            return version;
        }

        @Override
        public void close() {
            try {
                Files.deleteIfExists(file);
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot release the lease " + file, e);
            }
        }
    }

    /** Takes a lease on {@code version} for this process. */
    public Lease take(long version) {
        ProcessHandle self = ProcessHandle.current();
        Path file = directory.resolve(String.format("v%012d-%s.lease", version, UUID.randomUUID()));
        Path temporary = directory.resolve(".taking-" + file.getFileName());
        try {
            Files.createDirectories(directory);
            Files.write(temporary, JSON.writeValueAsBytes(JSON.createObjectNode().put("pid", self.pid())
                    .put("processStart", startOf(self))));
            Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE);
            return new Lease(file, version);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot take a lease on version " + version + " in " + directory, e);
        }
    }

    /** The oldest version a live lease holds; removes the leases of processes that are gone. */
    public OptionalLong oldestHeld() {
        if (!Files.isDirectory(directory)) {
            return OptionalLong.empty();
        }
        List<Path> files;
        try (Stream<Path> listed = Files.list(directory)) {
            files = listed.toList();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot list the readers' leases in " + directory, e);
        }
        long oldest = Long.MAX_VALUE;
        for (Path file : files) {
            Matcher matcher = LEASE_FILE.matcher(file.getFileName().toString());
            if (!matcher.matches()) {
                continue;
            }
            if (isLive(file)) {
                oldest = Math.min(oldest, Long.parseLong(matcher.group(1)));
            } else {
                try {
                    Files.deleteIfExists(file);
                } catch (IOException e) {
                    throw new UncheckedIOException("Cannot remove the lease of a reader that is gone: " + file, e);
                }
            }
        }
        return oldest == Long.MAX_VALUE ? OptionalLong.empty() : OptionalLong.of(oldest);
    }

    /** Whether the process that took the lease still runs (the same process: its pid and its start). */
    private static boolean isLive(Path file) {
        JsonNode lease;
        try {
            lease = JSON.readTree(Files.readAllBytes(file));
        } catch (NoSuchFileException e) {
            return false;
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read the lease " + file, e);
        }
        long start = lease.path("processStart").asLong();
        return ProcessHandle.of(lease.path("pid").asLong()).map(process -> startOf(process) == start).orElse(false);
    }

    private static long startOf(ProcessHandle process) {
        return process.info().startInstant().map(instant -> instant.toEpochMilli()).orElse(0L);
    }
}
