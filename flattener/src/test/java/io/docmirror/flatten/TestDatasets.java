package io.docmirror.flatten;

import org.junit.jupiter.params.provider.Arguments;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * The real public datasets in the repository's {@code testdata/} folder ({@code testdata/README.md} says what each is
 * and where it comes from). They are part of the repository: a missing folder or dataset fails the test that needs
 * it, with the path it looked for, and is never a reason to skip.
 */
public final class TestDatasets {
    /** The datasets every test that reads them expects, by table name; each is {@code <name>.jsonl}. */
    public static final List<String> NAMES = List.of("json_schema_test_suite", "mongo_books", "mongo_restaurant",
            "nobel_laureates", "osv_vulns", "usgs_earthquakes", "vega_budget", "world_countries_geojson");

    private TestDatasets() {
    }

    /**
     * The {@code testdata/} folder: the nearest one beside a {@code pom.xml}, looking from the working directory (a
     * module's directory under Maven, the repository root in some IDEs) upwards.
     *
     * @throws IllegalStateException when there is none
     */
    public static Path directory() {
        Path start = Path.of("").toAbsolutePath();
        for (Path directory = start; directory != null; directory = directory.getParent()) {
            Path testdata = directory.resolve("testdata");
            if (Files.isDirectory(testdata) && Files.isRegularFile(directory.resolve("pom.xml"))) {
                return testdata;
            }
        }
        throw new IllegalStateException("Cannot find the test datasets: no directory from " + start
                + " upwards holds both testdata/ and pom.xml; they are part of the repository (testdata/README.md)");
    }

    /**
     * A file in {@code testdata/}.
     *
     * @throws IllegalStateException when it is missing
     */
    public static Path file(String fileName) {
        Path file = directory().resolve(fileName);
        if (!Files.isRegularFile(file)) {
            throw new IllegalStateException("Cannot find the test dataset " + file.toAbsolutePath()
                    + ": it is part of the repository (testdata/README.md)");
        }
        return file;
    }

    /** Every {@code *.jsonl} file in {@code testdata/}, sorted by name; each of {@link #NAMES} must be there. */
    public static List<Path> files() {
        NAMES.forEach(name -> file(name + ".jsonl"));
        try (Stream<Path> files = Files.list(directory())) {
            return files.filter(file -> file.getFileName().toString().endsWith(".jsonl")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** (file name, policy) for each dataset and each type policy. */
    public static Stream<Arguments> everyDatasetWithEveryPolicy() {
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
