package io.docmirror.store;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The repository's {@code testdata/} folder (real public datasets and malformed JSON samples, each with its source
 * and licence in its README), found from the working directory upwards: the nearest {@code testdata/} beside a
 * {@code pom.xml}. The data is part of the repository, so a test that cannot find it fails, naming where it looked,
 * and never skips. Shared through this module's test jar by the modules that depend on the store.
 */
public final class TestData {
    private TestData() {
    }

    /** The folder. */
    public static Path directory() {
        Path start = Path.of("").toAbsolutePath();
        for (Path root = start; root != null; root = root.getParent()) {
            if (Files.isDirectory(root.resolve("testdata")) && Files.isRegularFile(root.resolve("pom.xml"))) {
                return root.resolve("testdata");
            }
        }
        throw new IllegalStateException("Cannot find the test data: no directory from " + start + " upwards holds "
                + "both testdata/ and pom.xml; it is part of the repository (testdata/README.md)");
    }

    /** A file of the folder ({@code mongo_books.jsonl}, {@code malformed/INDEX.tsv}), which must exist. */
    public static Path file(String relativePath) {
        Path file = directory().resolve(relativePath);
        if (!Files.isRegularFile(file)) {
            throw new IllegalStateException("Test data " + file + " is missing; it is part of the repository "
                    + "(testdata/README.md)");
        }
        return file;
    }
}
