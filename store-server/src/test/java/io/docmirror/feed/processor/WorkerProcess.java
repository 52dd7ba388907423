package io.docmirror.feed.processor;

import io.docmirror.store.ChildProcesses;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@link ProcessorWorker} in its own JVM. Its stdout and stderr (the processor's log) go to a file rather than a
 * pipe, so that they survive a SIGKILL and a failing test can print them.
 */
final class WorkerProcess implements AutoCloseable {
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

    private final String workerId;
    private final Process process;
    private final Path handledFile;
    private final Path logFile;

    private WorkerProcess(String workerId, Process process, Path handledFile, Path logFile) {
        this.workerId = workerId;
        this.process = process;
        this.handledFile = handledFile;
        this.logFile = logFile;
    }

    /** Starts the worker and waits until its processor has started. */
    static WorkerProcess start(String storeUri, String workerId, Path directory)
            throws IOException, InterruptedException {
        Path handledFile = directory.resolve(workerId + "-handled.txt");
        Path logFile = directory.resolve(workerId + "-log.txt");
        List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-Dorg.slf4j.simpleLogger.showDateTime=true",
                "-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS", "-cp", System.getProperty("java.class.path"),
                ProcessorWorker.class.getName(), storeUri, workerId, handledFile.toString());
        Process process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(logFile.toFile()).start();
        WorkerProcess worker = new WorkerProcess(workerId, process, handledFile, logFile);
        worker.awaitStarted();
        return worker;
    }

    private void awaitStarted() throws InterruptedException {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (!logLines().contains(ProcessorWorker.STARTED)) {
            if (!process.isAlive() || System.nanoTime() > deadline) {
                process.destroyForcibly();
                throw new IllegalStateException("Worker " + workerId + " did not start (exit code "
                        + (process.isAlive() ? "none" : process.exitValue()) + "); its log:\n" + log());
            }
            Thread.sleep(20);
        }
    }

    String workerId() {
        return workerId;
    }

    /** {@code kill -9}, and waits until the process is gone. */
    void sigkill() throws IOException, InterruptedException {
        ChildProcesses.sigkill(process);
    }

    /**
     * The keys ({@link ProcessorTesting#key}) of the changes the worker has handled so far, in order, with
     * repetitions. A line still being written (no newline yet) is left out.
     */
    List<String> handled() {
        String text = read(handledFile);
        List<String> keys = new ArrayList<>();
        int start = 0;
        for (int end = text.indexOf('\n'); end >= 0; end = text.indexOf('\n', start)) {
            keys.add(text.substring(start, end));
            start = end + 1;
        }
        return keys;
    }

    /** What the worker printed, stdout and stderr interleaved. */
    String log() {
        return read(logFile);
    }

    private List<String> logLines() {
        return log().lines().toList();
    }

    private static String read(Path file) {
        try {
            return Files.exists(file) ? new String(Files.readAllBytes(file), StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void close() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor();
    }
}
