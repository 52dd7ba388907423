package io.docmirror.mirror;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.docmirror.mirror.manifest.DurableFiles;
import io.docmirror.mirror.manifest.ManifestStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Which container a mirror directory mirrors: the store's resource id ({@code _rid}) of the container, kept in
 * {@code _container.json}. A container deleted and created again under the same name is another container, with
 * another resource id and a change log that starts again from LSN 1; its mirror must start again too, from its first
 * change, not go on from the old container's position (which would skip the new container's first changes and keep
 * the old one's rows). So when the ids differ, the old mirror is dropped, as Cosmos DB drops a deleted container's
 * analytical store.
 *
 * <p>A mirror made before its directory recorded the id takes the container's id as it is now.
 */
final class ContainerIdentity {
    static final String FILE = "_container.json";
    private static final Logger log = LoggerFactory.getLogger(ContainerIdentity.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    private ContainerIdentity() {
    }

    /**
     * Makes {@code directory} the mirror of the container with {@code resourceId}, dropping the mirror of an earlier
     * container of the same name. The caller holds the directory's lock.
     *
     * @param keep files of the directory that are not the mirror's (its lock)
     * @return whether an earlier container's mirror was dropped
     */
    static boolean claim(Path directory, String container, String resourceId, Set<String> keep) {
        Path file = directory.resolve(FILE);
        try {
            String recorded = Files.exists(file) ? JSON.readTree(file.toFile()).path("resourceId").asText(null) : null;
            if (resourceId.equals(recorded)) {
                return false;
            }
            boolean dropped = recorded != null;
            if (dropped) {
                log.warn("Container {} was deleted and created again (resource id {}, now {}): the old container's "
                        + "mirror is dropped, and the new one is mirrored from its first change", container, recorded,
                        resourceId);
                drop(directory, keep);
            }
            Path temporary = directory.resolve("." + FILE + ".tmp");
            JsonNode identity = JSON.createObjectNode().put("container", container).put("resourceId", resourceId);
            Files.write(temporary, JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(identity));
            DurableFiles.fsync(temporary);
            Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            DurableFiles.fsyncDirectory(directory);
            return dropped;
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot record which container " + directory + " mirrors", e);
        }
    }

    /**
     * Deletes the old mirror: its manifests first, so that a crash midway leaves no version that lists a deleted
     * file (the next open drops the rest, since the identity file still names the old container).
     */
    private static void drop(Path directory, Set<String> keep) throws IOException {
        deleteTree(directory.resolve(ManifestStore.DIRECTORY));
        List<Path> entries;
        try (Stream<Path> listed = Files.list(directory)) {
            entries = listed.filter(entry -> !keep.contains(entry.getFileName().toString())
                    && !entry.getFileName().toString().equals(FILE)).toList();
        }
        for (Path entry : entries) {
            deleteTree(entry);
        }
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path path : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
                Files.delete(path);
            }
        }
    }
}
