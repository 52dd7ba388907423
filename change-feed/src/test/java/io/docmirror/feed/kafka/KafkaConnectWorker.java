package io.docmirror.feed.kafka;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * A real Kafka Connect worker in standalone mode ({@code org.apache.kafka.connect.cli.ConnectStandalone}, from Maven
 * Central's {@code connect-runtime}) in a child JVM, running the connectors it is given: stock plugins found on the
 * test classpath through their service manifests. Its log is {@code connect.log} in its directory.
 */
final class KafkaConnectWorker implements AutoCloseable {
    private static final Duration STOP = Duration.ofSeconds(30);

    private final Path directory;
    private final Process process;

    private KafkaConnectWorker(Path directory, Process process) {
        this.directory = directory;
        this.process = process;
    }

    /**
     * @param connectors each connector's name and configuration
     */
    static KafkaConnectWorker start(Path directory, String bootstrapServers,
            Map<String, Map<String, String>> connectors) throws IOException {
        Files.createDirectories(directory);
        Map<String, String> worker = new TreeMap<>(Map.of(
                "bootstrap.servers", bootstrapServers,
                "key.converter", "org.apache.kafka.connect.json.JsonConverter",
                "value.converter", "org.apache.kafka.connect.json.JsonConverter",
                "offset.storage.file.filename", directory.resolve("offsets").toString(),
                "listeners", "http://127.0.0.1:" + KafkaBroker.freePort(),
                // The plugins on the classpath all ship service manifests: no scanning of the whole classpath.
                "plugin.discovery", "service_load",
                // docmirror publishes in transactions: a sink reads only what they committed.
                "consumer.isolation.level", "read_committed"));
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx384m",
                "-cp", System.getProperty("java.class.path"), "org.apache.kafka.connect.cli.ConnectStandalone",
                write(directory.resolve("worker.properties"), worker).toString()));
        for (Map.Entry<String, Map<String, String>> connector : connectors.entrySet()) {
            Map<String, String> properties = new TreeMap<>(connector.getValue());
            properties.put("name", connector.getKey());
            command.add(write(directory.resolve(connector.getKey() + ".properties"), properties).toString());
        }
        Process process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(directory.resolve("connect.log").toFile()))
                .start();
        return new KafkaConnectWorker(directory, process);
    }

    /** The lines of a file a sink writes, once it has at least {@code count}; fails when the worker stops. */
    List<String> awaitLines(Path file, int count, Duration timeout) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            List<String> lines = Files.exists(file) ? Files.readAllLines(file, StandardCharsets.UTF_8) : List.of();
            if (lines.size() >= count) {
                return lines;
            }
            if (!process.isAlive() || System.nanoTime() > deadline) {
                throw new IllegalStateException("The Kafka Connect worker wrote " + lines.size() + " of " + count
                        + " lines to " + file + (process.isAlive() ? " within " + timeout : " and exited")
                        + "; the errors in its log:\n" + errors());
            }
            Thread.sleep(200);
        }
    }

    /** The log's lines that tell of errors, the last 40 of them; the log is deleted with a test's directory. */
    private String errors() throws IOException {
        List<String> errors = Files.readAllLines(directory.resolve("connect.log"), StandardCharsets.UTF_8).stream()
                .filter(line -> line.contains("ERROR") || line.contains("Exception") || line.startsWith("\tat ")
                        || line.startsWith("Caused by"))
                .toList();
        return String.join("\n", errors.subList(Math.max(0, errors.size() - 40), errors.size()));
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(STOP.toSeconds(), TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(STOP.toSeconds(), TimeUnit.SECONDS);
        }
    }

    private static Path write(Path file, Map<String, String> properties) throws IOException {
        StringBuilder text = new StringBuilder();
        properties.forEach((key, value) -> text.append(key).append('=').append(value).append('\n'));
        return Files.writeString(file, text);
    }
}
