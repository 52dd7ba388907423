package io.docmirror.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.docmirror.restfixture.RestCatalogServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The commands on a mirror whose tables are in a real Iceberg REST catalog (Iceberg's reference server, in a JVM of
 * its own), named by the config file's {@code mirror.catalog.*}: {@code mirror sync} writes it, and {@code status},
 * {@code sql} and {@code reconcile} read it.
 */
class RestCatalogCommandTest {
    @TempDir
    Path work;

    @Test
    void statusSqlAndReconcileReadTheConfiguredRestCatalog() throws Exception {
        try (RestCatalogServer server = RestCatalogServer.start(work.resolve("rest"))) {
            Path data = work.resolve("data");
            Path config = Files.writeString(work.resolve("config.yaml"), "mirror:\n  catalog:\n    type: rest\n"
                    + "    uri: " + server.uri() + "\n    warehouse: " + server.warehouse() + "\n");
            Path orders = Files.writeString(work.resolve("orders.jsonl"),
                    "{\"id\":\"o1\",\"c\":\"x\",\"total\":1.50}\n{\"id\":\"o2\",\"c\":\"y\",\"total\":2}\n");
            assertThat(Docmirror.run("import", "--data", data.toString(), "--container", "orders", "--pk", "/c",
                    orders.toString())).isEqualTo(ExitCodes.OK);
            assertThat(Docmirror.run("mirror", "sync", "--data", data.toString(), "--config", config.toString()))
                    .isEqualTo(ExitCodes.OK);
            assertThat(data.resolve("mirror").resolve("catalog.db")).doesNotExist();

            String status = output("status", "--data", data.toString(), "--config", config.toString(), "--json");
            JsonNode container = new ObjectMapper().readTree(status.substring(status.indexOf('{')))
                    .get("containers").get(0);
            assertThat(container.get("container").asText()).isEqualTo("orders");
            assertThat(container.get("batch").asLong()).isEqualTo(1);
            assertThat(container.get("lagEvents").asLong()).isZero();
            assertThat(container.get("storedRows").asLong()).isEqualTo(2);

            assertThat(output("sql", "--data", data.toString(), "--config", config.toString(), "--format", "csv",
                    "SELECT id FROM orders ORDER BY id")).contains("o1", "o2");
            assertThat(Docmirror.run("reconcile", "--data", data.toString(), "--config", config.toString()))
                    .isEqualTo(ExitCodes.OK);
        }
    }

    private static String output(String... arguments) {
        PrintStream original = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            assertThat(Docmirror.run(arguments)).as(String.join(" ", arguments)).isEqualTo(ExitCodes.OK);
        } finally {
            System.setOut(original);
        }
        return captured.toString(StandardCharsets.UTF_8);
    }
}
