package io.docmirror.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

class RunCommandTest {
    @TempDir
    Path dir;

    @Test
    void theDemoLoadsMirrorsAnswersAndKeepsTheMirrorFresh() {
        String firstRun = run("run", "--demo", "--data", dir.toString(), "--orders", "600", "--port", "0",
                "--sql-port", "0", "--metrics-port", "0", "--orders-per-second", "50", "--exit-after", "3");

        assertThat(firstRun)
                .contains("Loaded 600 generated orders into container CustomersOrdersAndItems")
                .contains("Mirrored 600 changes")
                .contains("SQL in-process: jdbc:docmirror:" + dir.toAbsolutePath())
                .containsPattern("URL: +jdbc:arrow-flight-sql://127.0.0.1:[0-9]+/\\?useEncryption=false")
                .containsPattern("Metrics \\(Prometheus\\): http://127.0.0.1:[0-9]+/metrics")
                .contains("-- Best-selling products")
                .contains("(5 rows)")
                .containsPattern("stream: [0-9,]+ orders written \\(0 failed\\)");
        // What the stream wrote reached the mirror before the command returned: the last commit happens on stop.
        String counts = run("sql", "--data", dir.toString(), "--format", "csv",
                "SELECT (SELECT count(*) FROM CustomersOrdersAndItems) > 600 AS grew, "
                        + "(SELECT count(*) FROM CustomersOrdersAndItems_history WHERE operation = 'REPLACE') > 0 "
                        + "AS updated");
        assertThat(counts.lines()).containsExactly("grew,updated", "true,true");

        String secondRun = run("run", "--demo", "--data", dir.toString(), "--orders", "600", "--port", "0",
                "--sql-port", "0", "--metrics-port", "0", "--orders-per-second", "0", "--exit-after", "1");
        assertThat(secondRun).contains("Container CustomersOrdersAndItems already holds the 600 demo orders");
    }

    private static String run(String... command) {
        PrintStream original = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            assertThat(Docmirror.run(command)).as(String.join(" ", command)).isEqualTo(ExitCodes.OK);
        } finally {
            System.setOut(original);
        }
        return captured.toString(StandardCharsets.UTF_8);
    }
}
