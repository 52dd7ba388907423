package io.docmirror.flatten;

import org.junit.jupiter.params.provider.Arguments;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The real public datasets in {@code ../shared/data} (next to the repository; tests that need them skip without). */
public final class SharedDatasets {
    public static final Path DIRECTORY = Path.of("..", "..", "shared", "data");

    private SharedDatasets() {
    }

    public static boolean available() {
        return Files.isDirectory(DIRECTORY);
    }

    /** Every {@code *.jsonl} file, sorted by name. */
    public static List<Path> files() {
        try (Stream<Path> files = Files.list(DIRECTORY)) {
            return files.filter(file -> file.getFileName().toString().endsWith(".jsonl")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** (file name, policy) for each dataset and each type policy; skips the test when the datasets are missing. */
    public static Stream<Arguments> everyDatasetWithEveryPolicy() {
        assumeTrue(available(), "shared datasets not found at " + DIRECTORY);
        List<Arguments> cases = new ArrayList<>();
        for (Path file : files()) {
            for (TypePolicy policy : TypePolicy.values()) {
                cases.add(Arguments.of(file.getFileName().toString(), policy));
            }
        }
        return cases.stream();
    }

    public static String tableName(Path file) {
        String name = file.getFileName().toString();
        return name.substring(0, name.length() - ".jsonl".length());
    }
}
