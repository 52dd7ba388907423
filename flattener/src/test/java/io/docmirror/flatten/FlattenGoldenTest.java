package io.docmirror.flatten;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Golden cases: each directory under {@code src/test/resources/flatten} holds {@code input.jsonl}, an optional
 * {@code config.json}, and what the flattener must produce: {@code expected/<table>.csv} and {@code schema.json}.
 * Run with {@code -Dflatten.golden.update=true} to rewrite the expected files after a deliberate change, then review
 * the diff.
 */
class FlattenGoldenTest {
    static final Path CASES = Path.of("src", "test", "resources", "flatten");
    private static final boolean UPDATE = Boolean.getBoolean("flatten.golden.update");

    static Stream<String> cases() throws IOException {
        try (Stream<Path> directories = Files.list(CASES)) {
            return directories.filter(Files::isDirectory).map(path -> path.getFileName().toString()).sorted().toList()
                    .stream();
        }
    }

    @ParameterizedTest
    @MethodSource("cases")
    void producesTheExpectedTablesAndSchema(String name) throws IOException {
        Path directory = CASES.resolve(name);
        FlattenerConfig config = readConfig(directory);
        Flattener flattener = Flattener.create(config);
        List<ObjectNode> documents = TestingDocuments.readLines(directory.resolve("input.jsonl"));
        List<FlattenResult> results = new ArrayList<>();
        for (int line = 0; line < documents.size(); line++) {
            results.add(flattener.flatten(TestingDocuments.source(name, documents.get(line), line + 1)));
        }

        Map<String, String> actual = GoldenRendering.render(flattener.schema(), results);
        if (UPDATE) {
            write(directory, actual);
        }
        for (Map.Entry<String, String> file : actual.entrySet()) {
            Path expected = directory.resolve(file.getKey());
            assertThat(expected).as("golden file of case %s", name).exists();
            assertThat(file.getValue()).as("%s of case %s", file.getKey(), name)
                    .isEqualTo(Files.readString(expected, StandardCharsets.UTF_8));
        }
        try (Stream<Path> expectedTables = Files.list(directory.resolve("expected"))) {
            assertThat(expectedTables.map(path -> "expected/" + path.getFileName()))
                    .as("tables of case %s", name)
                    .containsExactlyInAnyOrderElementsOf(actual.keySet().stream()
                            .filter(file -> file.startsWith("expected/")).toList());
        }

        if (config.typePolicy() != TypePolicy.WELL_DEFINED) {
            for (int line = 0; line < documents.size(); line++) {
                ObjectNode input = withoutDroppedPaths(documents.get(line).deepCopy(), config)
                        .put("_lsn", (long) line + 1);
                JsonNode rebuilt = DocumentRebuilder.rebuild(results.get(line).rows());
                assertThat(TestingDocuments.sameDocument(input, rebuilt))
                        .as("document %d of case %s rebuilt from its rows:%n%s%nexpected:%n%s", line + 1, name,
                                rebuilt, input)
                        .isTrue();
            }
        }
    }

    /** A {@code drop} override is a loss the user asked for; the rebuilt document lacks those properties. */
    private static ObjectNode withoutDroppedPaths(ObjectNode document, FlattenerConfig config) {
        config.overrides().forEach((path, override) -> {
            if (override == PathOverride.DROP) {
                JsonNode parent = document;
                List<String> steps = path.steps();
                for (String step : steps.subList(0, steps.size() - 1)) {
                    parent = parent.path(step);
                }
                if (parent instanceof ObjectNode object) {
                    object.remove(steps.get(steps.size() - 1));
                }
            }
        });
        return document;
    }

    static FlattenerConfig readConfig(Path directory) throws IOException {
        FlattenerConfig config = FlattenerConfig.defaults(directory.getFileName().toString().replace('-', '_'));
        Path file = directory.resolve("config.json");
        if (!Files.exists(file)) {
            return config;
        }
        JsonNode json = TestingDocuments.EXACT.readTree(file.toFile());
        if (json.has("typePolicy")) {
            config = config.withTypePolicy(TypePolicy.fromConfigValue(json.get("typePolicy").textValue()));
        }
        if (json.has("maxDepth")) {
            config = config.withMaxDepth(json.get("maxDepth").intValue());
        }
        if (json.has("columnLimit")) {
            config = config.withColumnLimit(json.get("columnLimit").intValue());
        }
        if (json.has("detectTimestamps")) {
            config = config.withDetectTimestamps(json.get("detectTimestamps").booleanValue());
        }
        if (json.has("overrides")) {
            for (var entry : (Iterable<Map.Entry<String, JsonNode>>) json.get("overrides")::fields) {
                config = config.withOverride(JsonPath.parse(entry.getKey()),
                        PathOverride.fromConfigValue(entry.getValue().textValue()));
            }
        }
        return config;
    }

    private static void write(Path directory, Map<String, String> files) throws IOException {
        Path expected = directory.resolve("expected");
        if (Files.exists(expected)) {
            try (Stream<Path> old = Files.list(expected)) {
                for (Path file : old.toList()) {
                    Files.delete(file);
                }
            }
        }
        Files.createDirectories(expected);
        for (Map.Entry<String, String> file : files.entrySet()) {
            Files.writeString(directory.resolve(file.getKey()), file.getValue(), StandardCharsets.UTF_8);
        }
    }
}
