package io.docmirror.store;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The official Python SDK for Cosmos DB against the store over TLS, unchanged: version 3 (azure-cosmos 3.1.1), the
 * one Debian packages (python3-azure-cosmos, for Debian's /usr/bin/python3; PyPI, with version 4, is not reachable
 * from the build machine). The script's own unittest cases cover resources, items, conditions, queries, the read
 * feed, the change feed of each range and keys; this test runs them and then checks what they left in the store.
 */
class PythonSdkTest {
    /** Where Debian's python3-azure-cosmos is importable: Debian's own Python, whatever else is on the PATH. */
    private static final String PYTHON = "/usr/bin/python3";
    private static final Path SCRIPTS = Path.of("src", "test", "python");
    private static final String SCRIPT = "cosmos_sdk_test.py";

    @TempDir
    Path directory;

    @Test
    void thePythonSdkRunsItsTestsAgainstTheStore() throws Exception {
        ClientProcess probe = ClientProcess.run(SCRIPTS, Map.of(), 60, PYTHON, "-c", "import azure.cosmos");
        assertThat(probe.exitCode()).as("%s cannot import the SDK; install Debian's python3-azure-cosmos "
                + "(README, 'Quickstart'):%n%s", PYTHON, probe.output()).isZero();

        try (TestingCosmosGateway gateway = TestingCosmosGateway.start(directory)) {
            ClientProcess run = ClientProcess.run(SCRIPTS, Map.of(
                    "COSMOS_ENDPOINT", gateway.server.baseUri(),
                    "COSMOS_KEY", gateway.primaryKey,
                    "COSMOS_READ_ONLY_KEY", gateway.readOnlyKey,
                    "COSMOS_CERTIFICATE", gateway.certificate.toAbsolutePath().toString(),
                    "PYTHONDONTWRITEBYTECODE", "1"),
                    300, PYTHON, SCRIPT);
            System.out.println(run.output());

            long declared = Pattern.compile("(?m)^    def test_").matcher(Files.readString(SCRIPTS.resolve(SCRIPT)))
                    .results().count();
            assertThat(run.exitCode()).as("python's exit code").isZero();
            Matcher ran = Pattern.compile("(?m)^Ran (\\d+) tests? in").matcher(run.output());
            assertThat(ran.find()).as("unittest's summary").isTrue();
            assertThat(Long.parseLong(ran.group(1))).as("tests run").isEqualTo(declared).isGreaterThan(5);
            assertThat(run.output()).as("tracebacks the SDK printed and survived").doesNotContain("Traceback");

            String writtenBack = gateway.store.readItem("pyshop.orders", PartitionKey.of("c1"), "o2").json();
            assertThat(writtenBack).as("an item read and written back").contains("\"total\":3")
                    .doesNotContain("_self", "_attachments");
            assertThat(gateway.store.listContainers()).extracting(ContainerProperties::id)
                    .contains("pyshop.orders", "pyshop.events");
            assertThatThrownBy(() -> gateway.store.readItem("cosmos-databases", PartitionKey.of("pyscratch"),
                    "pyscratch")).as("the deleted database").isInstanceOf(StoreException.class);
        }
    }
}
