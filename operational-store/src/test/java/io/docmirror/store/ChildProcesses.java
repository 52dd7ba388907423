package io.docmirror.store;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Child JVMs for crash tests: started on the test classpath, killed with a real SIGKILL. */
public final class ChildProcesses {
    private ChildProcesses() {
    }

    /**
     * Starts {@code mainClass} with the test's classpath and waits until it prints its first line, which must be
     * {@code expectedFirstLine}.
     */
    public static Process startJava(String mainClass, String expectedFirstLine, String... arguments) throws IOException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-cp", System.getProperty("java.class.path"), mainClass));
        command.addAll(List.of(arguments));
        Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String first = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))
                .readLine();
        if (!expectedFirstLine.equals(first)) {
            process.destroyForcibly();
            throw new IllegalStateException(mainClass + " printed '" + first + "' instead of '" + expectedFirstLine + "'");
        }
        return process;
    }

    /**
     * {@code kill -9}, and waits until the process is gone. (Process.destroyForcibly would also close our end of its
     * pipes, losing what the child printed just before it died.)
     */
    public static void sigkill(Process process) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-9", Long.toString(process.pid())).start();
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new IllegalStateException("kill -9 " + process.pid() + " failed");
        }
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            throw new IllegalStateException("Process " + process.pid() + " outlived kill -9");
        }
    }
}
