package io.docmirror.store;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Child JVMs for crash tests: started on the test classpath, killed with a real SIGKILL. */
public final class ChildProcesses {
    /**
     * A crash test's child lives seconds before it is killed: the C2 compiler's work would mostly be thrown away with
     * it, and on a CI machine's two cores it takes CPU from the child itself and the test. Only C1 compiles (about
     * 40% less CPU for a child that opens a container's tables and commits six batches), and one GC thread.
     */
    private static final List<String> SHORT_LIVED = List.of("-Xmx256m", "-XX:TieredStopAtLevel=1",
            "-XX:+UseSerialGC");

    private ChildProcesses() {
    }

    /**
     * Starts {@code mainClass} with the test's classpath, as a short-lived JVM ({@link #SHORT_LIVED}), and waits
     * until it prints its first line, which must be {@code expectedFirstLine}. Its standard error goes to a temporary
     * file, whose end a failure to start shows.
     */
    public static Process startJava(String mainClass, String expectedFirstLine, String... arguments) throws IOException {
        return startJava(SHORT_LIVED, mainClass, expectedFirstLine, arguments);
    }

    /** {@link #startJava(String, String, String...)} with these options for the JVM (its heap, say). */
    public static Process startJava(List<String> jvmOptions, String mainClass, String expectedFirstLine,
            String... arguments) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        // Arrow's memory (the mirror hands rows to DuckDB as Arrow) needs java.nio open, as the docmirror launcher has it.
        command.addAll(List.of("--add-opens=java.base/java.nio=ALL-UNNAMED", "-cp",
                System.getProperty("java.class.path"), mainClass));
        command.addAll(List.of(arguments));
        Path errors = Files.createTempFile("docmirror-child-", ".stderr");
        errors.toFile().deleteOnExit();
        Process process = new ProcessBuilder(command).redirectError(errors.toFile()).start();
        String first = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))
                .readLine();
        if (!expectedFirstLine.equals(first)) {
            process.destroyForcibly();
            try {
                process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            throw new IllegalStateException(mainClass + " printed '" + first + "' instead of '" + expectedFirstLine
                    + "'; the end of its standard error:\n" + tail(errors));
        }
        return process;
    }

    private static String tail(Path file) throws IOException {
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
    }

    /**
     * {@code kill -9}, and waits until the process is gone. (Process.destroyForcibly would also close our end of its
     * pipes, losing what the child printed just before it died.)
     */
    public static void sigkill(Process process) throws IOException, InterruptedException {
        if (!process.isAlive()) {
            throw new IllegalStateException("Process " + process.pid() + " had exited (code " + process.exitValue()
                    + ") before it was to be killed");
        }
        Process kill = new ProcessBuilder("kill", "-9", Long.toString(process.pid())).start();
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new IllegalStateException("kill -9 " + process.pid() + " failed");
        }
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            throw new IllegalStateException("Process " + process.pid() + " outlived kill -9");
        }
    }
}
