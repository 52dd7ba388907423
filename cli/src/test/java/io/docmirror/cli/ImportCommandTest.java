package io.docmirror.cli;

import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.Item;
import io.docmirror.store.PartitionKey;
import io.docmirror.store.StoreConfig;
import io.docmirror.store.StoreTesting;
import io.docmirror.store.TestData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class ImportCommandTest {
    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0}")
    @CsvSource({
            "mongo_restaurant, /type_of_food, --id=/_id, 2548, 0",
            "mongo_books, /status, --id=/_id, 431, 0",
            "osv_vulns, /schema_version, , 4324, 0",
            "usgs_earthquakes, /properties/type, , 1707, 0",
            "nobel_laureates, /gender, , 992, 0",
            "json_schema_test_suite, /none, --generate-ids, 2277, 0",
            // Two countries share the id "-99": the second is a conflict, reported, never a silent overwrite.
            "world_countries_geojson, /geometry/type, , 179, 1",
            "vega_budget, /Agency name, --generate-ids, 237, 0",
    })
    void everyTestDatasetImports(String dataset, String partitionKey, String idOption, long loaded, long rejected) {
        Path file = dataset(dataset);
        List<String> args = new java.util.ArrayList<>(List.of("import", "--data", dir.toString(), "--container", dataset,
                "--pk", partitionKey, "--rejects", dir.resolve("rejects.jsonl").toString()));
        if (idOption != null) {
            args.add(idOption);
        }
        args.add(file.toString());

        int exit = Docmirror.run(args.toArray(String[]::new));

        assertThat(exit).isEqualTo(rejected == 0 ? ExitCodes.OK : ExitCodes.SOME_REJECTED);
        try (EmbeddedStore store = EmbeddedStore.open(dir.resolve("store"), StoreConfig.defaults())) {
            assertThat(StoreTesting.allItems(store, dataset)).hasSize((int) loaded);
            assertThat(store.readContainer(dataset).analyticalTtl()).isEqualTo(-1);
        }
    }

    @Test
    void badLinesGoToTheRejectsFileAndGoodLinesLoad() throws IOException {
        Path input = write("""
                {"id":"1","pk":"a","n":1}
                {"id":"2","pk":"a",
                [1,2]

                {"id":"1","pk":"a","n":2}
                {"id":"3","pk":"b","n":123456789012345678901234567890}
                """);
        Path rejects = dir.resolve("rejects.jsonl");

        int exit = Docmirror.run("import", "--data", dir.toString(), "--container", "c", "--pk", "/pk",
                "--rejects", rejects.toString(), input.toString());

        assertThat(exit).isEqualTo(ExitCodes.SOME_REJECTED);
        List<String> lines = Files.readAllLines(rejects);
        assertThat(lines).hasSize(3);
        assertThat(lines.get(0)).contains("\"line\":2", "\"status\":400", "is not valid JSON");
        assertThat(lines.get(1)).contains("\"line\":3", "the document is not a JSON object but an array");
        assertThat(lines.get(2)).contains("\"line\":5", "\"status\":409", "an item with this id already exists");
        try (EmbeddedStore store = EmbeddedStore.open(dir.resolve("store"), StoreConfig.defaults())) {
            assertThat(StoreTesting.allItems(store, "c")).extracting(Item::id).containsExactlyInAnyOrder("1", "3");
            assertThat(store.readItem("c", PartitionKey.of("a"), "1").json()).contains("\"n\":1,");
            assertThat(store.readItem("c", PartitionKey.of("b"), "3").json()).contains("123456789012345678901234567890");
        }
    }

    /** Without --rejects, the rejects go beside the input file, never into whatever directory the command ran in. */
    @Test
    void theRejectsFileIsBesideTheInputByDefault() throws IOException {
        Path input = dir.resolve("exports").resolve("rejects-beside-input.jsonl");
        Files.createDirectories(input.getParent());
        Files.writeString(input, "{\"id\":\"1\",\"pk\":\"a\"}\nnot json\n", StandardCharsets.UTF_8);
        Path inWorkingDirectory = Path.of("rejects-beside-input.jsonl.rejects.jsonl");
        try {
            int exit = Docmirror.run("import", "--data", dir.toString(), "--container", "c", "--pk", "/pk",
                    input.toString());

            assertThat(exit).isEqualTo(ExitCodes.SOME_REJECTED);
            assertThat(input.resolveSibling("rejects-beside-input.jsonl.rejects.jsonl")).content()
                    .contains("\"line\":2", "is not valid JSON");
            assertThat(inWorkingDirectory).as("a rejects file in the working directory").doesNotExist();
        } finally {
            Files.deleteIfExists(inWorkingDirectory);
        }
    }

    @Test
    void failFastStopsAtTheFirstBadLine() throws IOException {
        Path input = write("""
                {"id":"1","pk":"a"}
                {"id":"2","pk":"a"}
                not json
                {"id":"4","pk":"a"}
                """);

        int exit = Docmirror.run("import", "--data", dir.toString(), "--container", "c", "--pk", "/pk", "--fail-fast",
                "--rejects", dir.resolve("r.jsonl").toString(), input.toString());

        assertThat(exit).isEqualTo(ExitCodes.SOME_REJECTED);
        try (EmbeddedStore store = EmbeddedStore.open(dir.resolve("store"), StoreConfig.defaults())) {
            assertThat(StoreTesting.allItems(store, "c")).extracting(Item::id).containsExactlyInAnyOrder("1", "2");
        }
    }

    @Test
    void idFromAnotherPropertyNeverOverwritesADifferentId() throws IOException {
        Path input = write("""
                {"_id":{"$oid":"5a9427648b0beebeb69579e7"},"pk":"a"}
                {"_id":42,"pk":"a"}
                {"_id":"x","id":"y","pk":"a"}
                """);

        int exit = Docmirror.run("import", "--data", dir.toString(), "--container", "c", "--pk", "/pk", "--id", "/_id",
                "--rejects", dir.resolve("r.jsonl").toString(), input.toString());

        assertThat(exit).isEqualTo(ExitCodes.SOME_REJECTED);
        assertThat(Files.readString(dir.resolve("r.jsonl")))
                .contains("Line 3 has its own id \\\"y\\\", which differs from /_id = 'x'; refusing to overwrite it");
        try (EmbeddedStore store = EmbeddedStore.open(dir.resolve("store"), StoreConfig.defaults())) {
            assertThat(StoreTesting.allItems(store, "c")).extracting(Item::id)
                    .containsExactlyInAnyOrder("5a9427648b0beebeb69579e7", "42");
        }
    }

    @Test
    void missingContainerWithoutPartitionKeyIsAClearError() throws IOException {
        Path input = write("{\"id\":\"1\"}\n");
        int exit = Docmirror.run("import", "--data", dir.toString(), "--container", "c", input.toString());
        assertThat(exit).isEqualTo(ExitCodes.FAILURE);
    }

    /**
     * The dataset {@code testdata/<name>.jsonl} of the repository; a missing one fails the test. {@link
     * MirrorCommandTest} reads them through this too.
     */
    static Path dataset(String name) {
        return TestData.file(name + ".jsonl");
    }

    private Path write(String content) throws IOException {
        Path file = dir.resolve("input.jsonl");
        Files.writeString(file, content, StandardCharsets.UTF_8);
        return file;
    }
}
