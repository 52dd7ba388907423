package io.docmirror.store;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A client program outside the JVM (an official SDK's tests in Node.js or Python) run to its end: its exit code and
 * everything it printed, standard error included.
 */
record ClientProcess(int exitCode, String output) {

    /** Runs {@code command} in {@code directory} with extra environment variables; waits for it to end. */
    static ClientProcess run(Path directory, Map<String, String> environment, long timeoutSeconds, String... command)
            throws IOException, InterruptedException {
        Path output = Files.createTempFile("docmirror-client-", ".out");
        try {
            ProcessBuilder builder = new ProcessBuilder(command).directory(directory.toFile())
                    .redirectErrorStream(true).redirectOutput(output.toFile());
            builder.environment().putAll(environment);
            Process process = builder.start();
            if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                throw new IllegalStateException(String.join(" ", command) + " did not end within " + timeoutSeconds
                        + " s; it printed:\n" + Files.readString(output, StandardCharsets.UTF_8));
            }
            return new ClientProcess(process.exitValue(), Files.readString(output, StandardCharsets.UTF_8));
        } finally {
            Files.delete(output);
        }
    }
}
