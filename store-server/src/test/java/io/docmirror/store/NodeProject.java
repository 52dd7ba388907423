package io.docmirror.store;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The tests' Node.js project ({@code src/test/javascript}: a package.json, its lock file and test scripts), copied into
 * {@code target} and installed there with {@code npm ci} from the npm registry, then run with the machine's Node.js.
 * A missing or too old Node.js fails the test with what to install: these tests never skip.
 */
final class NodeProject {
    private static final int OLDEST_NODE = 20;

    private final Path directory;

    private NodeProject(Path directory) {
        this.directory = directory;
    }

    /** Copies the project into {@code target/javascript} and installs its locked dependencies, once per build. */
    static NodeProject install() throws IOException, InterruptedException {
        checkNodeVersion();
        Path source = Path.of("src", "test", "javascript");
        Path directory = Path.of("target", "javascript");
        Files.createDirectories(directory);
        try (Stream<Path> files = Files.list(source)) {
            for (Path file : files.toList()) {
                Files.copy(file, directory.resolve(file.getFileName()), StandardCopyOption.REPLACE_EXISTING);
            }
        }
        NodeProject project = new NodeProject(directory);
        if (!Files.exists(directory.resolve("node_modules").resolve(".package-lock.json"))) {
            ClientProcess install = project.run(Map.of(), TimeUnit.MINUTES.toSeconds(5), "npm", "ci", "--no-audit",
                    "--no-fund");
            if (install.exitCode() != 0) {
                throw new IllegalStateException("npm ci failed in " + directory.toAbsolutePath() + ":\n"
                        + install.output());
            }
        }
        return project;
    }

    /** Runs a command in the project's directory with extra environment variables; waits for it to end. */
    ClientProcess run(Map<String, String> environment, long timeoutSeconds, String... command)
            throws IOException, InterruptedException {
        return ClientProcess.run(directory, environment, timeoutSeconds, command);
    }

    Path directory() {
        return directory;
    }

    private static void checkNodeVersion() throws IOException, InterruptedException {
        String version;
        try {
            Process node = new ProcessBuilder("node", "--version").redirectErrorStream(true).start();
            version = new String(node.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            node.waitFor(30, TimeUnit.SECONDS);
        } catch (IOException e) {
            throw new IllegalStateException("These tests need Node.js " + OLDEST_NODE + " or newer with npm on the "
                    + "PATH (README, 'What you need'): " + e.getMessage(), e);
        }
        String major = version.replaceFirst("^v", "").split("\\.")[0];
        if (!major.matches("\\d{1,4}") || Integer.parseInt(major) < OLDEST_NODE) {
            throw new IllegalStateException("These tests need Node.js " + OLDEST_NODE + " or newer; node --version "
                    + "printed '" + version + "'");
        }
    }
}
