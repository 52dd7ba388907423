package io.docmirror.feed.kafka;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Uuid;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A real single-node Kafka broker (KRaft, broker and controller in one process) on loopback, run from Maven
 * Central's Kafka artifacts in a child JVM: {@code kafka.tools.StorageTool format}, then {@code kafka.Kafka}. No
 * Docker. Tests start one per class;
 * {@link KafkaBrokerCommand} (the {@code ./kafka-broker} script) runs one for a user until it is stopped.
 *
 * <p>It can be stopped and started again on the same ports and data, to test a broker restart mid-stream.
 */
public final class KafkaBroker implements AutoCloseable {
    private static final Duration STARTUP = Duration.ofSeconds(90);

    private final Path directory;
    private final int brokerPort;
    private final int controllerPort;
    private Process process;

    private KafkaBroker(Path directory, int brokerPort, int controllerPort) {
        this.directory = directory;
        this.brokerPort = brokerPort;
        this.controllerPort = controllerPort;
    }

    /** Formats storage in {@code directory} and starts the broker on free ports; returns once it answers. */
    public static KafkaBroker start(Path directory) throws IOException, InterruptedException {
        return start(directory, freePort(), freePort());
    }

    /**
     * Formats storage in {@code directory} (unless an earlier start formatted it: its topics are kept) and starts the
     * broker listening on {@code brokerPort}, its KRaft controller on {@code controllerPort}; returns once it answers.
     */
    public static KafkaBroker start(Path directory, int brokerPort, int controllerPort)
            throws IOException, InterruptedException {
        // Another broker on the port would answer the readiness check below in this one's place.
        requireFree(brokerPort, "broker");
        requireFree(controllerPort, "controller");
        KafkaBroker broker = new KafkaBroker(directory, brokerPort, controllerPort);
        broker.format();
        try {
            broker.startProcess();
        } catch (IOException | InterruptedException | RuntimeException e) {
            // A broker that did not answer in time may still be running: it must not outlive the failed start.
            broker.kill();
            throw e;
        }
        return broker;
    }

    public String bootstrapServers() {
        return "127.0.0.1:" + brokerPort;
    }

    /** Stops the broker process at once (SIGKILL): nothing is flushed that Kafka's own log did not already hold. */
    public void kill() throws InterruptedException {
        if (process != null) {
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
            process = null;
        }
    }

    /** Starts the broker again on the same ports and data. */
    public void restart() throws IOException, InterruptedException {
        kill();
        startProcess();
    }

    @Override
    public void close() throws InterruptedException {
        kill();
    }

    private Path properties() throws IOException {
        Path file = directory.resolve("server.properties");
        Files.createDirectories(directory);
        Files.writeString(file, String.join("\n",
                "process.roles=broker,controller",
                "node.id=1",
                "controller.quorum.voters=1@127.0.0.1:" + controllerPort,
                "listeners=PLAINTEXT://127.0.0.1:" + brokerPort + ",CONTROLLER://127.0.0.1:" + controllerPort,
                "advertised.listeners=PLAINTEXT://127.0.0.1:" + brokerPort,
                "controller.listener.names=CONTROLLER",
                "inter.broker.listener.name=PLAINTEXT",
                "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
                "log.dirs=" + directory.resolve("logs"),
                "num.partitions=4",
                "offsets.topic.replication.factor=1",
                "offsets.topic.num.partitions=4",
                "transaction.state.log.replication.factor=1",
                "transaction.state.log.min.isr=1",
                "transaction.state.log.num.partitions=4",
                "group.initial.rebalance.delay.ms=0",
                "auto.create.topics.enable=false",
                ""));
        return file;
    }

    private void format() throws IOException, InterruptedException {
        if (Files.exists(directory.resolve("logs").resolve("meta.properties"))) {
            // Formatted by an earlier start: formatting again would give it another cluster id, which Kafka refuses.
            return;
        }
        Process format = java("kafka.tools.StorageTool", "format", "-t", Uuid.randomUuid().toString(), "-c",
                properties().toString());
        if (!format.waitFor(STARTUP.toSeconds(), TimeUnit.SECONDS) || format.exitValue() != 0) {
            throw new IllegalStateException("Cannot format Kafka storage in " + directory + "; see "
                    + directory.resolve("broker.log"));
        }
    }

    private void startProcess() throws IOException, InterruptedException {
        process = java("kafka.Kafka", properties().toString());
        long deadline = System.nanoTime() + STARTUP.toNanos();
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers(),
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 2000,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 3000))) {
            while (true) {
                if (!process.isAlive()) {
                    throw new IllegalStateException("Kafka broker exited with " + process.exitValue() + "; see "
                            + directory.resolve("broker.log"));
                }
                try {
                    admin.describeCluster().nodes().get(3, TimeUnit.SECONDS);
                    return;
                } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException notYet) {
                    // Still starting: ask again until the deadline.
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException("Kafka broker did not answer within " + STARTUP + "; see "
                                + directory.resolve("broker.log"), notYet);
                    }
                    Thread.sleep(250);
                }
            }
        }
    }

    private Process java(String mainClass, String... arguments) throws IOException {
        List<String> command = new java.util.ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx512m", "-Xms128m",
                "-cp", System.getProperty("java.class.path"), mainClass));
        command.addAll(List.of(arguments));
        return new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(directory.resolve("broker.log").toFile()))
                .start();
    }

    /** Waits until the broker process ends (it was stopped or failed) and returns its exit code. */
    public int awaitExit() throws InterruptedException {
        Process running = process;
        if (running == null) {
            throw new IllegalStateException("Cannot wait for the Kafka broker in " + directory + ": it is not running");
        }
        return running.waitFor();
    }

    private static void requireFree(int port, String listener) throws IOException {
        try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            socket.setReuseAddress(true);
        } catch (BindException e) {
            throw new IOException("Cannot listen on 127.0.0.1:" + port + " for the " + listener
                    + ": the port is in use", e);
        }
    }

    static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
