package io.docmirror.s3fixture;

import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * An S3-compatible server for a test: S3Proxy ({@code org.gaul.s3proxy.Main}), serving S3's API over jclouds'
 * {@code filesystem} blob store, in a JVM of its own. Each bucket is a folder of the store directory and each object a
 * file under it, so a test can see (and age) what went into the store without an S3 client.
 *
 * <p>Not in the test's JVM: S3Proxy brings its own Jetty, Jackson and AWS SDK v1. The s3-fixture module copies the
 * server's class path into its {@code target/s3-server}; a consuming module's surefire configuration names that
 * directory in the system property {@value #CLASSPATH_PROPERTY}. Uses nothing but the JDK, so a consumer's class path
 * gains nothing else.
 */
public final class S3ProxyServer implements AutoCloseable {
    /** The system property naming the directory of the server's jars (the fixture module's target/s3-server). */
    public static final String CLASSPATH_PROPERTY = "docmirror.s3-server.classpath";
    /** The access key id the server accepts. */
    public static final String ACCESS_KEY_ID = "docmirror-test";
    /** The secret access key the server accepts. */
    public static final String SECRET_ACCESS_KEY = "docmirror-test-secret";
    /** Any region: S3Proxy signs and checks requests with the one the client names. */
    public static final String REGION = "us-east-1";

    private static final String MAIN_CLASS = "org.gaul.s3proxy.Main";
    /** A jar the server cannot run without: tells a wrong or half-copied directory from the real one. */
    private static final String SERVER_JAR_PREFIX = "s3proxy-";
    private static final Duration STARTUP_DEADLINE = Duration.ofSeconds(60);
    private static final Duration POLL_INTERVAL = Duration.ofMillis(100);
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);
    private static final Duration STOP_DEADLINE = Duration.ofSeconds(20);
    private static final int LOG_TAIL_LINES = 40;

    private final Process process;
    private final int port;
    private final Path storeDirectory;
    private final Path stdoutLog;
    private final Path stderrLog;
    private final Thread shutdownHook;

    private S3ProxyServer(Process process, int port, Path storeDirectory, Path stdoutLog, Path stderrLog,
            Thread shutdownHook) {
        this.process = process;
        this.port = port;
        this.storeDirectory = storeDirectory;
        this.stdoutLog = stdoutLog;
        this.stderrLog = stderrLog;
        this.shutdownHook = shutdownHook;
    }

    /**
     * Starts a server whose blob store ({@code store/}), configuration and logs live in the work directory, with the
     * given buckets made, on the jars that the system property {@value #CLASSPATH_PROPERTY} names; returns once it
     * accepts connections on its port.
     */
    public static S3ProxyServer start(Path workDirectory, String... buckets) throws IOException, InterruptedException {
        String classpath = System.getProperty(CLASSPATH_PROPERTY);
        if (classpath == null || classpath.isBlank()) {
            throw new IllegalStateException("The system property " + CLASSPATH_PROPERTY + " is not set. A module whose"
                    + " tests start the S3 server sets it in its maven-surefire-plugin configuration"
                    + " (systemPropertyVariables) to ${project.basedir}/../s3-fixture/target/s3-server, and depends on"
                    + " docmirror-s3-fixture's test-jar so that the reactor builds it first.");
        }
        return start(workDirectory, Path.of(classpath), buckets);
    }

    /** As {@link #start(Path, String...)}, on the server's jars in the given directory. */
    public static S3ProxyServer start(Path workDirectory, Path serverClasspath, String... buckets)
            throws IOException, InterruptedException {
        Path jars = serverClasspath.toAbsolutePath().normalize();
        requireServerJars(jars);
        Path directory = Files.createDirectories(workDirectory.toAbsolutePath().normalize());
        Path store = Files.createDirectories(directory.resolve("store"));
        for (String bucket : buckets) {
            // The filesystem blob store's buckets are its base directory's folders.
            Files.createDirectories(store.resolve(bucket));
        }
        Path stdoutLog = directory.resolve("s3-server.stdout.log");
        Path stderrLog = directory.resolve("s3-server.stderr.log");
        int port = freePort();
        Path properties = directory.resolve("s3proxy.properties");
        Files.writeString(properties, String.join("\n",
                "s3proxy.endpoint=http://127.0.0.1:" + port,
                "s3proxy.authorization=aws-v2-or-v4",
                "s3proxy.identity=" + ACCESS_KEY_ID,
                "s3proxy.credential=" + SECRET_ACCESS_KEY,
                "jclouds.provider=filesystem",
                "jclouds.identity=unused",
                "jclouds.credential=unused",
                "jclouds.filesystem.basedir=" + store,
                ""));

        ProcessBuilder builder = new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                // A small server; the test machines are shared.
                "-Xmx256m",
                // The java launcher expands "dir/*" to the directory's jars itself (no shell here).
                "-cp", jars + "/*",
                MAIN_CLASS,
                "--properties", properties.toString());
        builder.directory(directory.toFile());
        // Files, not pipes: nobody has to drain the child's output for it to keep running.
        builder.redirectOutput(stdoutLog.toFile());
        builder.redirectError(stderrLog.toFile());
        builder.redirectInput(ProcessBuilder.Redirect.from(nullDevice()));

        Process process = builder.start();
        // A test JVM that exits without closing the server (a failed assertion before close, a surefire timeout)
        // must not leave it running; a JVM killed outright still can.
        Thread shutdownHook = new Thread(process::destroyForcibly, "s3-server-" + port + "-reaper");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
        S3ProxyServer server = new S3ProxyServer(process, port, store, stdoutLog, stderrLog, shutdownHook);
        try {
            server.awaitListening();
        } catch (RuntimeException | InterruptedException | IOException e) {
            try {
                server.close();
            } catch (RuntimeException closing) {
                e.addSuppressed(closing);
            }
            throw e;
        }
        return server;
    }

    /** The server's endpoint, for an S3 client's endpoint override (path-style access). */
    public String endpoint() {
        return "http://127.0.0.1:" + port;
    }

    /** The file that holds the object {@code key} of {@code bucket} (it need not exist). */
    public Path objectFile(String bucket, String key) {
        return storeDirectory.resolve(bucket).resolve(key);
    }

    /** The server's log. */
    public Path stderrLog() {
        return stderrLog;
    }

    /** Stops the server (SIGTERM, then SIGKILL after a deadline) and waits for its JVM to exit. */
    @Override
    public void close() {
        try {
            process.destroy();
            if (!process.waitFor(STOP_DEADLINE.toMillis(), TimeUnit.MILLISECONDS)) {
                System.out.println("S3 server on port " + port + " ignored SIGTERM for " + STOP_DEADLINE
                        + "; killing it");
                process.destroyForcibly();
                process.waitFor();
            }
        } catch (InterruptedException e) {
            // Unchecked, so that try-with-resources need not catch it; the server is killed all the same.
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while stopping the S3 server on port " + port + " (pid "
                    + process.pid() + "); killed it", e);
        }
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException e) {
            // The JVM is already shutting down: the hook runs (or ran) anyway, and destroying an exited process is a
            // no-op. Nothing to undo, but say so rather than hide it.
            System.out.println("S3 server on port " + port + ": shutdown hook not removed: " + e);
        }
    }

    /**
     * Waits until the server accepts a connection on its port. S3Proxy opens its port only once jclouds' blob store
     * is set up, so a port that answers is a server ready for requests.
     */
    private void awaitListening() throws IOException, InterruptedException {
        long started = System.nanoTime();
        long deadline = started + STARTUP_DEADLINE.toNanos();
        String lastSeen = "nothing yet";
        IOException lastFailure = null;
        int attempts = 0;
        while (true) {
            if (!process.isAlive()) {
                throw failure("exited with code " + process.exitValue() + " before listening on port " + port
                        + " (last seen: " + lastSeen + ")", lastFailure);
            }
            attempts++;
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", port), (int) CONNECT_TIMEOUT.toMillis());
                System.out.println("S3 server (S3Proxy, pid " + process.pid() + ") accepted a connection on "
                        + endpoint() + " after " + Duration.ofNanos(System.nanoTime() - started).toMillis()
                        + " ms and " + attempts + " attempts; blob store " + storeDirectory);
                return;
            } catch (IOException e) {
                // Connection refused until Jetty listens: the condition is not met yet. Kept for the report.
                lastSeen = e.toString();
                lastFailure = e;
            }
            if (System.nanoTime() - deadline > 0) {
                throw failure("did not listen on port " + port + " within " + STARTUP_DEADLINE + " (" + attempts
                        + " attempts; last seen: " + lastSeen + ")", lastFailure);
            }
            Thread.sleep(POLL_INTERVAL.toMillis());
        }
    }

    private IllegalStateException failure(String what, Exception cause) throws IOException {
        return new IllegalStateException("S3 server (pid " + process.pid() + ", port " + port + ") " + what
                + "\n--- tail of " + stderrLog + " ---\n" + tail(stderrLog)
                + "\n--- tail of " + stdoutLog + " ---\n" + tail(stdoutLog), cause);
    }

    private static void requireServerJars(Path jars) throws IOException {
        if (!Files.isDirectory(jars)) {
            throw new IllegalStateException("No S3 server class path at " + jars + " (" + CLASSPATH_PROPERTY
                    + "): build the s3-fixture module first (its generate-resources phase copies the server's jars"
                    + " there), e.g. mvn -pl <module> -am test");
        }
        try (Stream<Path> files = Files.list(jars)) {
            if (files.noneMatch(file -> file.getFileName().toString().startsWith(SERVER_JAR_PREFIX))) {
                throw new IllegalStateException("The S3 server class path " + jars + " (" + CLASSPATH_PROPERTY
                        + ") holds no " + SERVER_JAR_PREFIX + "*.jar: not the s3-fixture module's target/s3-server,"
                        + " or a partial copy");
            }
        }
    }

    /**
     * A port free now. The server binds it a moment later, so another process could take it in between: the server
     * then fails to start and says so (its log is in the failure).
     */
    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    private static File nullDevice() {
        return new File(System.getProperty("os.name").startsWith("Windows") ? "NUL" : "/dev/null");
    }

    private static String tail(Path log) throws IOException {
        if (!Files.exists(log)) {
            return "(no file)";
        }
        // Decoded leniently: a native crash report need not be UTF-8.
        List<String> lines = new String(Files.readAllBytes(log), StandardCharsets.UTF_8).lines().toList();
        List<String> tail = lines.subList(Math.max(0, lines.size() - LOG_TAIL_LINES), lines.size());
        return tail.isEmpty() ? "(empty)" : String.join("\n", tail);
    }

    @Override
    public String toString() {
        return "S3ProxyServer[" + endpoint() + ", pid " + process.pid() + ", store " + storeDirectory + "]";
    }
}
