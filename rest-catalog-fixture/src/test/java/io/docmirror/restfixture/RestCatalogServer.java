package io.docmirror.restfixture;

import java.io.File;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Iceberg's reference REST catalog server ({@code org.apache.iceberg.rest.RESTCatalogServer}, from Iceberg 1.11's test
 * fixtures), run in a JVM of its own for a test: its backing catalog is a JdbcCatalog on a SQLite file under the work
 * directory, and its tables' files go to a warehouse on the local disk there or in an S3-compatible object store.
 *
 * <p>Not in the test's JVM: the server needs Iceberg 1.11 (the fixtures are not published for 1.12), and core 1.11
 * and 1.12 cannot share a class path. The rest-catalog-fixture module copies the server's class path into its
 * {@code target/rest-server}; a consuming module's surefire configuration names that directory in the system property
 * {@value #CLASSPATH_PROPERTY}. Uses nothing but the JDK, so a consumer's class path gains nothing else.
 */
public final class RestCatalogServer implements AutoCloseable {
    /** The system property naming the directory of the server's jars (the fixture module's target/rest-server). */
    public static final String CLASSPATH_PROPERTY = "docmirror.rest-server.classpath";

    private static final String MAIN_CLASS = "org.apache.iceberg.rest.RESTCatalogServer";
    /** A jar the server cannot run without: tells a wrong or half-copied directory from the real one. */
    private static final String SERVER_JAR_PREFIX = "iceberg-open-api-";
    private static final Duration STARTUP_DEADLINE = Duration.ofSeconds(60);
    private static final Duration POLL_INTERVAL = Duration.ofMillis(100);
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration STOP_DEADLINE = Duration.ofSeconds(20);
    private static final int LOG_TAIL_LINES = 40;

    private final Process process;
    private final int port;
    private final String warehouse;
    private final Path stdoutLog;
    private final Path stderrLog;
    private final Thread shutdownHook;

    private RestCatalogServer(Process process, int port, String warehouse, Path stdoutLog, Path stderrLog,
                              Thread shutdownHook) {
        this.process = process;
        this.port = port;
        this.warehouse = warehouse;
        this.stdoutLog = stdoutLog;
        this.stderrLog = stderrLog;
        this.shutdownHook = shutdownHook;
    }

    /**
     * Starts a server whose catalog ({@code catalog.db}), warehouse ({@code warehouse/}) and logs live in the work
     * directory, on the jars that the system property {@value #CLASSPATH_PROPERTY} names, and returns once it answers
     * {@code GET /v1/config} with 200.
     */
    public static RestCatalogServer start(Path workDirectory) throws IOException, InterruptedException {
        return start(workDirectory, Path.of(requireClasspathProperty()));
    }

    private static String requireClasspathProperty() {
        String classpath = System.getProperty(CLASSPATH_PROPERTY);
        if (classpath == null || classpath.isBlank()) {
            throw new IllegalStateException("The system property " + CLASSPATH_PROPERTY + " is not set. A module whose"
                    + " tests start the REST catalog server sets it in its maven-surefire-plugin configuration"
                    + " (systemPropertyVariables) to ${project.basedir}/../rest-catalog-fixture/target/rest-server,"
                    + " and depends on docmirror-rest-catalog-fixture's test-jar so that the reactor builds it first.");
        }
        return classpath;
    }

    /** As {@link #start(Path)}, on the server's jars in the given directory. */
    public static RestCatalogServer start(Path workDirectory, Path serverClasspath)
            throws IOException, InterruptedException {
        Path directory = Files.createDirectories(workDirectory.toAbsolutePath().normalize());
        // Hadoop's local file system: the server writes the tables' metadata files where any reader can open them.
        return start(directory, serverClasspath, locationOf(Files.createDirectories(directory.resolve("warehouse"))),
                Map.of("io-impl", "org.apache.iceberg.hadoop.HadoopFileIO"));
    }

    /**
     * As {@link #start(Path)}, with the tables' files in {@code warehouse} ({@code s3://bucket/prefix}) rather than
     * on the local disk, written by the server through the FileIO that {@code catalogProperties} name (Iceberg's
     * catalog properties, such as {@code io-impl} and {@code s3.endpoint}: the server writes each commit's metadata
     * file itself). The server's class path has Iceberg's S3FileIO and the AWS SDK's S3 client.
     */
    public static RestCatalogServer startOnWarehouse(Path workDirectory, String warehouse,
            Map<String, String> catalogProperties) throws IOException, InterruptedException {
        Path directory = Files.createDirectories(workDirectory.toAbsolutePath().normalize());
        return start(directory, Path.of(requireClasspathProperty()), warehouse, catalogProperties);
    }

    private static RestCatalogServer start(Path directory, Path serverClasspath, String warehouse,
            Map<String, String> catalogProperties) throws IOException, InterruptedException {
        Path jars = serverClasspath.toAbsolutePath().normalize();
        requireServerJars(jars);
        Path stdoutLog = directory.resolve("rest-server.stdout.log");
        Path stderrLog = directory.resolve("rest-server.stderr.log");
        int port = freePort();

        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                // A small server; the test machines are shared.
                "-Xmx256m"));
        // The test's own settings of the AWS SDK (S3Proxy wants no flexible checksums), for the server's S3 client.
        System.getProperties().stringPropertyNames().stream().filter(name -> name.startsWith("aws."))
                .forEach(name -> command.add("-D" + name + "=" + System.getProperty(name)));
        command.addAll(List.of(
                // The java launcher expands "dir/*" to the directory's jars itself (no shell here).
                "-cp", jars + "/*",
                MAIN_CLASS));
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.directory(directory.toFile());
        // Files, not pipes: nobody has to drain the child's output for it to keep running.
        builder.redirectOutput(stdoutLog.toFile());
        builder.redirectError(stderrLog.toFile());
        builder.redirectInput(ProcessBuilder.Redirect.from(nullDevice()));
        // RESTCatalogServer turns CATALOG_* variables into catalog properties: CATALOG_ dropped, "__" to "-", "_" to
        // ".", lower case (RCKUtils.environmentCatalogConfig).
        Map<String, String> environment = builder.environment();
        environment.keySet().removeIf(name -> name.startsWith("CATALOG_"));
        catalogProperties.forEach((name, value) -> environment.put(environmentName(name), value));
        environment.put("CATALOG_URI", "jdbc:sqlite:" + directory.resolve("catalog.db"));
        environment.put("CATALOG_WAREHOUSE", warehouse);
        environment.put("CATALOG_REST_PORT", Integer.toString(port));
        environment.put("CATALOG_JDBC_SCHEMA__VERSION", "V1");

        Process process = builder.start();
        // A test JVM that exits without closing the server (a failed assertion before close, a surefire timeout)
        // must not leave it running; a JVM killed outright still can.
        Thread shutdownHook = new Thread(process::destroyForcibly, "rest-catalog-server-" + port + "-reaper");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
        RestCatalogServer server = new RestCatalogServer(process, port, warehouse, stdoutLog, stderrLog,
                shutdownHook);
        try {
            server.awaitReady();
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

    /** The REST catalog's base URI, for the client's {@code uri} property. */
    public String uri() {
        return "http://127.0.0.1:" + port;
    }

    /** The warehouse's location as the server was given it: {@code file:/...}, no trailing slash. */
    public String warehouse() {
        return warehouse;
    }

    public int port() {
        return port;
    }

    /** The server's log (slf4j-simple writes to stderr). */
    public Path stderrLog() {
        return stderrLog;
    }

    /** Stops the server (SIGTERM, then SIGKILL after a deadline) and waits for its JVM to exit. */
    @Override
    public void close() {
        try {
            process.destroy();
            if (!process.waitFor(STOP_DEADLINE.toMillis(), TimeUnit.MILLISECONDS)) {
                System.out.println("REST catalog server on port " + port + " ignored SIGTERM for " + STOP_DEADLINE
                        + "; killing it");
                process.destroyForcibly();
                process.waitFor();
            }
        } catch (InterruptedException e) {
            // Unchecked, so that try-with-resources need not catch it; the server is killed all the same.
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while stopping the REST catalog server on port " + port
                    + " (pid " + process.pid() + "); killed it", e);
        }
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException e) {
            // The JVM is already shutting down: the hook runs (or ran) anyway, and destroying an exited process is a
            // no-op. Nothing to undo, but say so rather than hide it.
            System.out.println("REST catalog server on port " + port + ": shutdown hook not removed: " + e);
        }
    }

    private void awaitReady() throws IOException, InterruptedException {
        URI config = URI.create(uri() + "/v1/config");
        HttpClient client = HttpClient.newBuilder().connectTimeout(REQUEST_TIMEOUT).build();
        HttpRequest request = HttpRequest.newBuilder(config).timeout(REQUEST_TIMEOUT).GET().build();
        long started = System.nanoTime();
        long deadline = started + STARTUP_DEADLINE.toNanos();
        String lastSeen = "nothing yet";
        Exception lastFailure = null;
        int attempts = 0;
        while (true) {
            if (!process.isAlive()) {
                throw failure("exited with code " + process.exitValue() + " before answering " + config
                        + " (last seen: " + lastSeen + ")", lastFailure);
            }
            attempts++;
            try {
                HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
                if (response.statusCode() == 200) {
                    System.out.println("REST catalog server (pid " + process.pid() + ") answered " + config + " with"
                            + " 200 after " + Duration.ofNanos(System.nanoTime() - started).toMillis() + " ms and "
                            + attempts + " attempts; warehouse " + warehouse);
                    return;
                }
                lastSeen = "HTTP " + response.statusCode() + ": " + abbreviate(response.body());
                lastFailure = null;
            } catch (IOException e) {
                // Connection refused until Jetty listens: the condition is not met yet. Kept for the report.
                lastSeen = e.toString();
                lastFailure = e;
            }
            if (System.nanoTime() - deadline > 0) {
                throw failure("did not answer " + config + " with 200 within " + STARTUP_DEADLINE + " (" + attempts
                        + " attempts; last seen: " + lastSeen + ")", lastFailure);
            }
            Thread.sleep(POLL_INTERVAL.toMillis());
        }
    }

    private IllegalStateException failure(String what, Exception cause) throws IOException {
        return new IllegalStateException("REST catalog server (pid " + process.pid() + ", port " + port + ") " + what
                + "\n--- tail of " + stderrLog + " ---\n" + tail(stderrLog)
                + "\n--- tail of " + stdoutLog + " ---\n" + tail(stdoutLog), cause);
    }

    private static void requireServerJars(Path jars) throws IOException {
        if (!Files.isDirectory(jars)) {
            throw new IllegalStateException("No REST catalog server class path at " + jars + " (" + CLASSPATH_PROPERTY
                    + "): build the rest-catalog-fixture module first (its generate-resources phase copies the"
                    + " server's jars there), e.g. mvn -pl <module> -am test");
        }
        try (Stream<Path> files = Files.list(jars)) {
            if (files.noneMatch(file -> file.getFileName().toString().startsWith(SERVER_JAR_PREFIX))) {
                throw new IllegalStateException("The REST catalog server class path " + jars + " ("
                        + CLASSPATH_PROPERTY + ") holds no " + SERVER_JAR_PREFIX + "*.jar: not the rest-catalog-fixture"
                        + " module's target/rest-server, or a partial copy");
            }
        }
    }

    /**
     * A port free now. The server binds it a moment later, so another process could take it in between: the server
     * then fails to start and says so (its stderr is in the failure). RESTCatalogServer sets SO_REUSEPORT on its
     * connector, so only another SO_REUSEPORT listener could share the port with it.
     */
    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    /**
     * {@code file:/x/warehouse}: the form the server reports locations in (Hadoop's Path turns {@code file:///x} into
     * {@code file:/x}), without a trailing slash, since locations under it are built by appending "/name".
     */
    private static String locationOf(Path directory) {
        String path = directory.toUri().getRawPath();
        return "file:" + (path.endsWith("/") ? path.substring(0, path.length() - 1) : path);
    }

    /**
     * The environment variable RESTCatalogServer turns into catalog property {@code name}: {@code s3.path-style-access}
     * is {@code CATALOG_S3_PATH__STYLE__ACCESS}.
     */
    private static String environmentName(String name) {
        return "CATALOG_" + name.replace("-", "__").replace(".", "_").toUpperCase(Locale.ROOT);
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

    private static String abbreviate(String body) {
        return body.length() <= 500 ? body : body.substring(0, 500) + "...";
    }

    @Override
    public String toString() {
        return "RestCatalogServer[" + uri() + ", pid " + process.pid() + ", warehouse " + warehouse + "]";
    }
}
