package io.docmirror.spark;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The {@code docmirror} command, run as a user runs it: {@code ./docmirror} from the repository, in a process. */
final class DocmirrorProcess {
    private static final Path LAUNCHER = Path.of("..", "docmirror").toAbsolutePath().normalize();
    private static final long TIMEOUT_MINUTES = 5;

    private DocmirrorProcess() {
    }

    /**
     * Runs one command to its end and returns what it printed on standard output.
     *
     * @param work where its standard error is kept while it runs
     * @throws AssertionError if it fails, with what it printed
     */
    static String run(Path work, String... args) {
        List<String> command = new ArrayList<>(List.of(LAUNCHER.toString()));
        command.addAll(List.of(args));
        try {
            Path errors = Files.createTempFile(work, "docmirror", ".err");
            Path output = Files.createTempFile(work, "docmirror", ".out");
            Process process = new ProcessBuilder(command).redirectError(errors.toFile())
                    .redirectOutput(output.toFile()).start();
            if (!process.waitFor(TIMEOUT_MINUTES, TimeUnit.MINUTES)) {
                process.destroyForcibly();
                throw new AssertionError(String.join(" ", command) + " did not end in " + TIMEOUT_MINUTES
                        + " minutes; it printed: " + Files.readString(errors, StandardCharsets.UTF_8));
            }
            if (process.exitValue() != 0) {
                throw new AssertionError(String.join(" ", command) + " exited with " + process.exitValue() + ": "
                        + Files.readString(output, StandardCharsets.UTF_8) + Files.readString(errors,
                        StandardCharsets.UTF_8));
            }
            return Files.readString(output, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("Interrupted while " + String.join(" ", command) + " ran", e);
        }
    }
}
