package io.docmirror.cli;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code docmirror run --demo} in a JVM of its own, stopped as Ctrl-C or {@code kill} stop it: through the JVM's
 * shutdown hooks, which libraries have too. Iceberg's hook shut its worker pool down while the mirror's last batch
 * and the demo's last query still needed it, and the stop ended in a stack trace.
 */
@Tag("slow")
class RunShutdownTest {
    private static final long DEADLINE_NANOS = TimeUnit.MINUTES.toNanos(3);

    @TempDir
    Path dir;

    @Test
    void aSignalStopsTheDemoInOrder() throws Exception {
        Path output = dir.resolve("output.txt");
        Process run = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx512m", "-cp", System.getProperty("java.class.path"), Docmirror.class.getName(),
                "run", "--demo", "--data", dir.resolve("data").toString(), "--orders", "600", "--port", "0",
                "--sql-port", "0", "--metrics-port", "0", "--orders-per-second", "50")
                .redirectErrorStream(true).redirectOutput(output.toFile()).start();
        try {
            // The first freshness line comes after the stream has made the mirror commit batches of several files.
            awaitOutput(output, "stream: ");
            run.destroy(); // SIGTERM: the same shutdown hooks as Ctrl-C's SIGINT
            assertThat(run.waitFor(60, TimeUnit.SECONDS)).as("run stops within a minute of the signal").isTrue();
        } finally {
            run.destroyForcibly();
        }
        String printed = Files.readString(output, StandardCharsets.UTF_8);
        System.out.println("run printed:\n" + printed);
        assertThat(printed).doesNotContain("Exception").doesNotContain("docmirror: ").contains("Closed store");
        List<String> freshness = printed.lines().filter(line -> line.startsWith("stream: ")).toList();
        assertThat(freshness).as("a last freshness line after the signal").hasSizeGreaterThanOrEqualTo(2);
        assertThat(run.exitValue()).as("128 + SIGTERM").isEqualTo(143);
    }

    private static void awaitOutput(Path output, String text) throws IOException, InterruptedException {
        long started = System.nanoTime();
        String printed = "";
        while (System.nanoTime() - started < DEADLINE_NANOS) {
            printed = Files.readString(output, StandardCharsets.UTF_8);
            if (printed.contains(text)) {
                return;
            }
            Thread.sleep(200);
        }
        throw new AssertionError("run never printed '" + text + "'; it printed:\n" + printed);
    }
}
