package io.docmirror.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.docmirror.demo.DemoDataset;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.StoreConfig;
import io.docmirror.store.StoreTesting;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

class DeriveCommandTest {
    private static final String EXAMPLE = Path.of("..", "docs", "examples", "customers-orders-items.yaml").toString();

    @TempDir
    Path dir;

    @Test
    void syncDerivesTheDemoOrdersAndStatusShowsNoLag() throws Exception {
        try (EmbeddedStore store = EmbeddedStore.open(dir.resolve("store"), StoreConfig.defaults())) {
            new DemoDataset(300).load(store, loaded -> { });
        }

        String output = capture("derive", "sync", "--data", dir.toString(), "--config", EXAMPLE);

        assertThat(output).contains("Derived 300 source changes",
                "Derivation orders: CustomersOrdersAndItems -> Customers, Orders, Items, 0 changes behind (0.0 s), "
                        + "0 errors recorded");
        try (EmbeddedStore store = EmbeddedStore.open(dir.resolve("store"), StoreConfig.defaults())) {
            assertThat(StoreTesting.allItems(store, "Orders")).hasSize(300);
            assertThat(StoreTesting.allItems(store, "Items")).hasSizeGreaterThan(300);
        }
        String json = capture("status", "--data", dir.toString(), "--config", EXAMPLE, "--json");
        JsonNode derivation = new ObjectMapper().readTree(json.substring(json.indexOf('{'))).get("derivations").get(0);
        assertThat(derivation.get("name").asText()).isEqualTo("orders");
        assertThat(derivation.get("lagEvents").asLong()).isZero();
        assertThat(derivation.get("errors").asLong()).isZero();
        assertThat(derivation.get("feedRanges")).hasSize(4);
    }

    @Test
    void withoutDerivationsTheCommandSaysWhatIsMissing() throws Exception {
        Path empty = Files.writeString(dir.resolve("config.yaml"), "store:\n  sync-writes: false\n");
        PrintStream originalErr = System.err;
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        System.setErr(new PrintStream(errors, true, StandardCharsets.UTF_8));
        try {
            assertThat(Docmirror.run("derive", "sync", "--data", dir.toString(), "--config", empty.toString()))
                    .isEqualTo(ExitCodes.FAILURE);
        } finally {
            System.setErr(originalErr);
        }
        assertThat(errors.toString(StandardCharsets.UTF_8)).contains("No derivations configured: give --config FILE "
                + "with a derivations section (docs/configuration.md, \"Derivations\")");
        assertThat(dir.resolve("store")).doesNotExist();
    }

    private static String capture(String... args) {
        PrintStream original = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            assertThat(Docmirror.run(args)).isEqualTo(ExitCodes.OK);
        } finally {
            System.setOut(original);
        }
        return captured.toString(StandardCharsets.UTF_8);
    }
}
