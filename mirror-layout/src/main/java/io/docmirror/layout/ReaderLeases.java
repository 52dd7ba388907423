package io.docmirror.layout;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static java.util.Objects.requireNonNull;

/**
 * The batches readers are reading, so that the mirror keeps their files until they are done: a reader (the SQL
 * endpoint's views, a reconcile) takes a lease on the batch it reads, and the mirror expires no snapshot of that batch
 * or later, and removes no file, while the lease is held. A lease is a file in {@code <container>/_readers/} naming
 * the batch and the process that holds it; a lease whose process is gone (killed, say) no longer counts, and is removed
 * by the next look. So files that compactions replaced can go as soon as no reader needs them, instead of after a time
 * long enough for any query.
 *
 * <p>Leases are told apart by process, so every reader and the mirror must share one machine's view of processes:
 * the mirror directory is local.
 */
public final class ReaderLeases {
    public static final String DIRECTORY = "_readers";
    private static final Pattern LEASE_FILE = Pattern.compile("v(\\d{12})-[0-9a-f-]+\\.lease");
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path directory;

    public ReaderLeases(Path containerDirectory) {
        this.directory = requireNonNull(containerDirectory, "containerDirectory is null").resolve(DIRECTORY);
    }

    /** A held lease; closing it lets the mirror remove what only its batch needs. */
    public final class Lease implements AutoCloseable {
        private final Path file;
        private final long batch;

        private Lease(Path file, long batch) {
            this.file = file;
            this.batch = batch;
        }

        public long batch() {
            return batch;
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

    /** Takes a lease on {@code batch} for this process. */
    public Lease take(long batch) {
        ProcessHandle self = ProcessHandle.current();
        Path file = directory.resolve(String.format("v%012d-%s.lease", batch, UUID.randomUUID()));
        Path temporary = directory.resolve(".taking-" + file.getFileName());
        try {
            Files.createDirectories(directory);
            Files.write(temporary, JSON.writeValueAsBytes(JSON.createObjectNode().put("pid", self.pid())
                    .put("processStart", startOf(self))));
            Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE);
            return new Lease(file, batch);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot take a lease on batch " + batch + " in " + directory, e);
        }
    }

    /** The oldest batch a live lease holds; removes the leases of processes that are gone. */
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
