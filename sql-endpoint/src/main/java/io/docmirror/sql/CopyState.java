package io.docmirror.sql;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.docmirror.layout.MirrorLayout;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.Optional;

import static java.util.Objects.requireNonNull;

/**
 * Where the SQL endpoint's copy of the tables stands ({@link ServingCopy}), as the endpoint last wrote it beside the
 * copy ({@code _sql/copy-state.json}): other processes ({@code docmirror status}) cannot open the copy while the
 * endpoint holds it.
 *
 * @param batches the batch of each container the copy holds
 * @param appliedAtMillis when the copy last moved, epoch milliseconds
 * @param remadeBecause why the copy was made again from the tables when the endpoint last opened it (it could not be
 *     read); null when it was not
 */
public record CopyState(Map<String, Long> batches, long appliedAtMillis, String remadeBecause) {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String FILE = "copy-state.json";

    public CopyState {
        batches = Map.copyOf(requireNonNull(batches, "batches is null"));
    }

    /** What the endpoint last wrote about the copy in {@code mirrorDirectory}; empty when no endpoint kept one. */
    public static Optional<CopyState> read(Path mirrorDirectory) {
        Path file = MirrorLayout.servingCopyDirectory(mirrorDirectory).resolve(FILE);
        if (!Files.exists(file)) {
            return Optional.empty();
        }
        try {
            return Optional.of(JSON.readValue(file.toFile(), CopyState.class));
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read the SQL endpoint's copy state " + file, e);
        }
    }

    /** Replaces the state in {@code copyDirectory} at once: a reader sees the old state or the new one. */
    void write(Path copyDirectory) {
        Path file = copyDirectory.resolve(FILE);
        Path written = copyDirectory.resolve(FILE + ".new");
        try {
            JSON.writeValue(written.toFile(), this);
            try {
                Files.move(written, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(written, file, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write the SQL endpoint's copy state " + file, e);
        }
    }
}
