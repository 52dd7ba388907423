package io.docmirror.cli;

import io.docmirror.layout.ContainerSnapshot;
import io.docmirror.layout.MirrorLayout;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class MirrorCommandTest {
    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0}")
    @CsvSource({
            "mongo_restaurant, /type_of_food, --id=/_id, 2548",
            "osv_vulns, /schema_version, --generate-ids, 4324",
            "usgs_earthquakes, /properties/type, --generate-ids, 1707",
            "nobel_laureates, /gender, --generate-ids, 992",
            "json_schema_test_suite, /none, --generate-ids, 2277",
            "vega_budget, /Agency name, --generate-ids, 237",
    })
    void everyTestDatasetMirrorsWithOneRowPerDocument(String dataset, String partitionKey, String idOption,
            long documents) throws SQLException {
        Path file = ImportCommandTest.dataset(dataset);
        assertThat(Docmirror.run("import", "--data", dir.toString(), "--container", dataset, "--pk", partitionKey,
                idOption, file.toString())).isEqualTo(ExitCodes.OK);

        assertThat(Docmirror.run("mirror", "sync", "--data", dir.toString())).isEqualTo(ExitCodes.OK);

        assertThat(count("SELECT count(*) FROM \"" + dataset + "\"")).isEqualTo(documents);
        assertThat(count("SELECT count(*) FROM \"" + dataset + "_history\"")).isEqualTo(documents);
        // Every value of every document, read back through the views, is the store's.
        assertThat(Docmirror.run("reconcile", "--data", dir.toString())).isEqualTo(ExitCodes.OK);
        // Compaction kept up: no table is left with the small files that make it due (mirror.compaction.files, 10;
        // a table whose schema grew with nearly every document once made a compaction run out of memory, leaving
        // hundreds of files).
        ContainerSnapshot tables = ContainerSnapshot.read(MirrorLayout.mirrorDirectory(dir), dataset).orElseThrow();
        assertThat(tables.tables().get(0).view().dataFiles()).as("data files of %s's root table", dataset)
                .hasSizeLessThan(10);
    }

    @Test
    void theMirrorsIcebergTablesAnswerThroughEveryCommand() throws Exception {
        Path file = ImportCommandTest.dataset("nobel_laureates");
        assertThat(Docmirror.run("import", "--data", dir.toString(), "--container", "laureates", "--pk", "/gender",
                "--generate-ids", file.toString())).isEqualTo(ExitCodes.OK);

        assertThat(Docmirror.run("mirror", "sync", "--data", dir.toString())).isEqualTo(ExitCodes.OK);

        assertThat(dir.resolve("mirror").resolve("catalog.db")).exists();
        assertThat(count("SELECT count(*) FROM laureates")).isEqualTo(992);
        assertThat(count("SELECT count(*) FROM laureates_history")).isEqualTo(992);
        JsonNode status = status().get(0);
        assertThat(status.get("batch").asLong()).isEqualTo(1);
        assertThat(status.get("lagEvents").asLong()).isZero();
        assertThat(status.get("storedRows").asLong()).isEqualTo(992);
        assertThat(Docmirror.run("reconcile", "--data", dir.toString())).isEqualTo(ExitCodes.OK);
    }

    @Test
    void statusShowsTheLagBeforeAndNoneAfterASync() throws Exception {
        Path orders = Files.writeString(dir.resolve("orders.jsonl"),
                "{\"id\":\"o1\",\"c\":\"x\"}\n{\"id\":\"o2\",\"c\":\"y\"}\n{\"id\":\"o3\",\"c\":\"x\"}\n");
        assertThat(Docmirror.run("import", "--data", dir.toString(), "--container", "orders", "--pk", "/c",
                orders.toString())).isEqualTo(ExitCodes.OK);

        JsonNode before = status();
        assertThat(Docmirror.run("mirror", "sync", "--data", dir.toString())).isEqualTo(ExitCodes.OK);
        JsonNode after = status();

        assertThat(before.get(0).get("batch").asLong()).isZero();
        assertThat(before.get(0).get("lagEvents").asLong()).isEqualTo(3);
        assertThat(after.get(0).get("container").asText()).isEqualTo("orders");
        assertThat(after.get(0).get("batch").asLong()).isEqualTo(1);
        assertThat(after.get(0).get("lagEvents").asLong()).isZero();
        assertThat(after.get(0).get("storedRows").asLong()).isEqualTo(3);
    }

    @Test
    void truncatedFilesAreReportedByStatusAndMendedByRepair() throws Exception {
        Path orders = Files.writeString(dir.resolve("orders.jsonl"),
                "{\"id\":\"o1\",\"c\":\"x\",\"n\":1}\n{\"id\":\"o2\",\"c\":\"y\",\"n\":2.5}\n");
        assertThat(Docmirror.run("import", "--data", dir.toString(), "--container", "orders", "--pk", "/c",
                orders.toString())).isEqualTo(ExitCodes.OK);
        assertThat(Docmirror.run("mirror", "sync", "--data", dir.toString())).isEqualTo(ExitCodes.OK);
        Path warehouse = dir.resolve("mirror").resolve("warehouse").resolve("orders");
        Path root = onlyParquet(warehouse.resolve("orders").resolve("data"));
        Path history = onlyParquet(warehouse.resolve("orders_history").resolve("data"));
        truncate(root);
        truncate(history);

        JsonNode damaged = status().get(0).get("damagedFiles");
        assertThat(damaged).hasSize(2);
        assertThat(damaged.toString()).contains(root.getFileName().toString())
                .contains(history.getFileName().toString());
        assertThat(Docmirror.run("reconcile", "--data", dir.toString())).isEqualTo(ExitCodes.FAILURE);

        assertThat(Docmirror.run("repair", "--data", dir.toString(), "--container", "orders"))
                .isEqualTo(ExitCodes.OK);

        assertThat(status().get(0).get("damagedFiles")).isEmpty();
        assertThat(count("SELECT count(*) FROM orders")).isEqualTo(2);
        assertThat(count("SELECT count(*) FROM orders_history")).isEqualTo(2);
        assertThat(Docmirror.run("reconcile", "--data", dir.toString())).isEqualTo(ExitCodes.OK);
    }

    private static Path onlyParquet(Path folder) throws IOException {
        try (var files = Files.list(folder)) {
            List<Path> parquet = files.filter(file -> file.toString().endsWith(".parquet")).toList();
            assertThat(parquet).as("Parquet files in %s", folder).hasSize(1);
            return parquet.get(0);
        }
    }

    private static void truncate(Path file) throws IOException {
        byte[] bytes = Files.readAllBytes(file);
        Files.write(file, Arrays.copyOf(bytes, bytes.length - 10));
    }

    private JsonNode status() throws Exception {
        PrintStream original = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            assertThat(Docmirror.run("status", "--data", dir.toString(), "--json")).isEqualTo(ExitCodes.OK);
        } finally {
            System.setOut(original);
        }
        String output = captured.toString(StandardCharsets.UTF_8);
        return new ObjectMapper().readTree(output.substring(output.indexOf('{'))).get("containers");
    }

    /**
     * A data directory whose mirror an earlier docmirror kept in its manifest format ({@code mirror/<container>/
     * _manifest/}): nothing reads or converts it, and every command that would says how to mirror the container again.
     */
    @Test
    void aMirrorInTheEarlierManifestLayoutIsRefusedWithWhatToDo() throws Exception {
        Path orders = Files.writeString(dir.resolve("orders.jsonl"), "{\"id\":\"o1\",\"c\":\"x\"}\n");
        assertThat(Docmirror.run("import", "--data", dir.toString(), "--container", "orders", "--pk", "/c",
                orders.toString())).isEqualTo(ExitCodes.OK);
        Path earlier = MirrorLayout.containerDirectory(MirrorLayout.mirrorDirectory(dir), "orders");
        Files.createDirectories(earlier.resolve("_manifest"));
        Files.writeString(earlier.resolve("_manifest").resolve("v00000000000000000001.json"), "{}");
        String whatToDo = "remove " + earlier + ", and run `docmirror backfill --container orders`";

        assertThat(fails("mirror", "sync", "--data", dir.toString())).contains("Cannot mirror container orders")
                .contains("manifest format of earlier docmirror versions").contains(whatToDo);
        assertThat(fails("backfill", "--data", dir.toString(), "--container", "orders"))
                .contains("Cannot mirror container orders").contains(whatToDo);
        JsonNode status = status().get(0);
        assertThat(status.get("container").asText()).isEqualTo("orders");
        assertThat(status.get("batch").asLong()).isZero();
        assertThat(status.get("earlierLayout").asText()).contains("manifest format of earlier docmirror versions")
                .contains(whatToDo);
        assertThat(earlier.resolve("_manifest")).isDirectory();
        assertThat(dir.resolve("mirror").resolve("warehouse").resolve("orders")).doesNotExist();
    }

    /** Runs a command that must fail; what it printed on stderr. */
    private static String fails(String... arguments) {
        PrintStream original = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            assertThat(Docmirror.run(arguments)).as(String.join(" ", arguments)).isEqualTo(ExitCodes.FAILURE);
        } finally {
            System.setErr(original);
        }
        return captured.toString(StandardCharsets.UTF_8);
    }

    @Test
    void aBadMirrorOptionIsRefusedWithItsName() throws Exception {
        Path config = Files.writeString(dir.resolve("config.yaml"), "mirror:\n  batch:\n    max-events: 0\n");

        int exit = Docmirror.run("mirror", "sync", "--data", dir.toString(), "--config", config.toString());

        assertThat(exit).isEqualTo(ExitCodes.FAILURE);
        assertThat(dir.resolve("store")).doesNotExist();
        assertThat(dir.resolve("mirror")).doesNotExist();
    }

    /** One number from a query on the mirror, through docmirror's JDBC driver as a user would ask. */
    private long count(String query) throws SQLException {
        try (Connection connection = DriverManager.getConnection("jdbc:docmirror:" + dir);
             Statement statement = connection.createStatement();
             ResultSet result = statement.executeQuery(query)) {
            result.next();
            return result.getLong(1);
        }
    }
}
