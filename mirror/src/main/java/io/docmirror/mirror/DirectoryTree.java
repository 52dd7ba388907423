package io.docmirror.mirror;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** A local directory with everything under it, as one thing to remove. */
public final class DirectoryTree {
    private DirectoryTree() {
    }

    /** Removes {@code root} and everything under it, the deepest first. */
    public static void remove(Path root) throws IOException {
        try (Stream<Path> files = Files.walk(root)) {
            for (Path file : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(file);
            }
        }
    }
}
