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
 * The official JavaScript SDK for Cosmos DB ({@code @azure/cosmos}, locked in src/test/javascript) against the store
 * over TLS, unchanged: the script's own tests (Node's test runner) cover resources, items, patch, batch, bulk,
 * queries, both change feed modes and keys; this test runs them and then checks what they left in the store.
 */
class JavaScriptSdkTest {
    private static final String SCRIPT = "cosmos-sdk.test.mjs";

    @TempDir
    Path directory;

    @Test
    void theJavaScriptSdkRunsItsTestsAgainstTheStore() throws Exception {
        NodeProject project = NodeProject.install();
        try (TestingCosmosGateway gateway = TestingCosmosGateway.start(directory)) {
            ClientProcess run = project.run(Map.of(
                    "COSMOS_ENDPOINT", gateway.server.baseUri(),
                    "COSMOS_KEY", gateway.primaryKey,
                    "COSMOS_READ_ONLY_KEY", gateway.readOnlyKey,
                    "NODE_EXTRA_CA_CERTS", gateway.certificate.toAbsolutePath().toString()),
                    300, "node", "--test", "--test-reporter=tap", SCRIPT);
            System.out.println(run.output());

            long declared = Pattern.compile("(?m)^test\\(").matcher(
                    Files.readString(project.directory().resolve(SCRIPT))).results().count();
            assertThat(run.exitCode()).as("node's exit code").isZero();
            assertThat(summary(run.output(), "pass")).as("tests passed").isEqualTo(declared).isGreaterThan(10);
            assertThat(summary(run.output(), "fail")).as("tests failed").isZero();

            EmbeddedStore store = gateway.store;
            assertThat(store.readItem("shop.stock", PartitionKey.of("B"), "s2").json())
                    .as("a number the SDK wrote, as the store keeps it").contains("\"count\":0.1");
            assertThat(store.readItem("shop.orders", PartitionKey.of("c2"), "o4").json())
                    .contains("\"total\":15", "\"status\":\"paid\"");
            assertThatThrownBy(() -> store.readContainer("scratch.notes"))
                    .as("the deleted database's container").isInstanceOf(StoreException.class);
        }
    }

    /** A figure of the TAP summary, e.g. {@code # pass 12}. */
    private static long summary(String output, String name) {
        Matcher matcher = Pattern.compile("(?m)^# " + name + " (\\d+)$").matcher(output);
        assertThat(matcher.find()).as("node's summary line '# %s'", name).isTrue();
        return Long.parseLong(matcher.group(1));
    }
}
