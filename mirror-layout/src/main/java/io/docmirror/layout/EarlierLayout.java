package io.docmirror.layout;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Mirrors made by docmirror before its tables became Iceberg tables kept their versions in a {@code _manifest}
 * directory of the container's directory ({@code DATA/mirror/<container>/_manifest/}). They are not read and not
 * converted: the container is mirrored again from a snapshot of the store, and every reader of the mirror (the
 * mirror itself, the SQL endpoint, {@code status}) says how, in the same words.
 */
public final class EarlierLayout {
    /** Where the earlier format kept its committed versions. */
    public static final String MANIFEST_DIRECTORY = "_manifest";

    private EarlierLayout() {
    }

    /** What to tell about {@code container} when {@code mirrorDirectory} holds its mirror in the earlier format. */
    public static Optional<String> message(Path mirrorDirectory, String container) {
        Path directory = MirrorLayout.containerDirectory(mirrorDirectory, container);
        return holdsEarlierLayout(directory) ? Optional.of(whatToDo(directory, container)) : Optional.empty();
    }

    /** @throws IllegalStateException when {@code mirrorDirectory} holds {@code container}'s mirror in the earlier format */
    public static void refuse(Path mirrorDirectory, String container) {
        message(mirrorDirectory, container).ifPresent(message -> {
            throw new IllegalStateException("Cannot mirror container " + container + ": " + message);
        });
    }

    /**
     * @throws IllegalStateException when any container directory of {@code mirrorDirectory} holds a mirror in the
     *     earlier format: {@code reader} (the SQL endpoint, say) would not show that container
     */
    public static void refuseAny(Path mirrorDirectory, String reader) {
        List<Path> earlier = containerDirectories(mirrorDirectory);
        if (!earlier.isEmpty()) {
            Path directory = earlier.get(0);
            String container = directory.getFileName().toString();
            throw new IllegalStateException(reader + " cannot serve container " + container + ": "
                    + whatToDo(directory, container)
                    + (earlier.size() > 1 ? " (and so for " + earlier.subList(1, earlier.size()) + ")" : ""));
        }
    }

    /** The container directories of {@code mirrorDirectory} that hold a mirror in the earlier format, sorted. */
    public static List<Path> containerDirectories(Path mirrorDirectory) {
        if (!Files.isDirectory(mirrorDirectory)) {
            return List.of();
        }
        try (Stream<Path> entries = Files.list(mirrorDirectory)) {
            return entries.filter(EarlierLayout::holdsEarlierLayout).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot list the container directories of " + mirrorDirectory, e);
        }
    }

    private static boolean holdsEarlierLayout(Path containerDirectory) {
        return Files.isDirectory(containerDirectory.resolve(MANIFEST_DIRECTORY));
    }

    private static String whatToDo(Path directory, String container) {
        return directory + " holds its mirror in the manifest format of earlier docmirror versions, which this "
                + "version neither reads nor converts. Stop the mirror, remove " + directory + ", and run `docmirror "
                + "backfill --container " + container + "` to mirror it again as Iceberg tables";
    }
}
