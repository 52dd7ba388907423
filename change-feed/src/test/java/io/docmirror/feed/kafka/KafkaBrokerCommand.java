package io.docmirror.feed.kafka;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The {@code ./kafka-broker} script: runs a {@link KafkaBroker} for a user until the process is stopped (Ctrl-C,
 * SIGTERM), printing its bootstrap address once it answers.
 *
 * <pre>./kafka-broker [--port N] [--controller-port N] [DATA_DIR]</pre>
 *
 * Ports default to free ones chosen at start; the data directory to a new temporary one. Exits 2 on a usage error and
 * 1 when the broker cannot start, with the reason and the end of the broker's log on stderr.
 */
final class KafkaBrokerCommand {
    private static final String USAGE = "Usage: ./kafka-broker [--port N] [--controller-port N] [DATA_DIR]";
    private static final int LOG_LINES_SHOWN = 30;

    private KafkaBrokerCommand() {
    }

    public static void main(String[] args) throws InterruptedException {
        Integer brokerPort = null;
        Integer controllerPort = null;
        Path directory = null;
        for (int index = 0; index < args.length; index++) {
            String argument = args[index];
            switch (argument) {
                case "--port" -> brokerPort = port(argument, args, ++index);
                case "--controller-port" -> controllerPort = port(argument, args, ++index);
                case "-h", "--help" -> {
                    System.out.println(USAGE);
                    return;
                }
                default -> {
                    if (argument.startsWith("-") || directory != null) {
                        usageError("Unknown argument: " + argument);
                    }
                    directory = Path.of(argument).toAbsolutePath();
                }
            }
        }
        if (brokerPort != null && brokerPort.equals(controllerPort)) {
            usageError("Invalid value " + brokerPort + " for --controller-port: the broker listens on it (--port)");
        }
        try {
            Path data = directory != null ? directory : Files.createTempDirectory("docmirror-kafka");
            run(data, brokerPort != null ? brokerPort : KafkaBroker.freePort(),
                    controllerPort != null ? controllerPort : KafkaBroker.freePort());
        } catch (IOException e) {
            System.err.println("kafka-broker: Cannot start the Kafka broker: " + e.getMessage());
            System.exit(1);
        }
    }

    private static void run(Path directory, int brokerPort, int controllerPort)
            throws IOException, InterruptedException {
        KafkaBroker broker;
        try {
            broker = KafkaBroker.start(directory, brokerPort, controllerPort);
        } catch (IllegalStateException e) {
            System.err.println("kafka-broker: Cannot start the Kafka broker on port " + brokerPort
                    + " (controller port " + controllerPort + "): " + e.getMessage());
            printLogTail(directory);
            System.exit(1);
            return;
        }
        AtomicBoolean stopping = new AtomicBoolean();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            stopping.set(true);
            try {
                broker.close();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "kafka-broker-stop"));
        System.out.println("Kafka broker at " + broker.bootstrapServers() + " (controller port " + controllerPort
                + ", data: " + directory + "); Ctrl-C stops it");
        int exitCode = broker.awaitExit();
        if (!stopping.get()) {
            System.err.println("kafka-broker: The Kafka broker exited with " + exitCode);
            printLogTail(directory);
            System.exit(1);
        }
    }

    private static int port(String option, String[] args, int index) {
        if (index >= args.length) {
            usageError("Missing value for " + option);
        }
        try {
            int port = Integer.parseInt(args[index]);
            if (port < 1 || port > 65535) {
                usageError("Invalid value " + args[index] + " for " + option + ": a port is 1 to 65535");
            }
            return port;
        } catch (NumberFormatException e) {
            usageError("Invalid value " + args[index] + " for " + option + ": not a number");
            throw new AssertionError("unreachable", e);
        }
    }

    /** The broker writes its own output to broker.log; its last lines usually say why it stopped. */
    private static void printLogTail(Path directory) {
        Path log = directory.resolve("broker.log");
        try {
            if (Files.exists(log)) {
                List<String> lines = Files.readAllLines(log);
                System.err.println("Last lines of " + log + ":");
                lines.subList(Math.max(0, lines.size() - LOG_LINES_SHOWN), lines.size()).forEach(System.err::println);
            }
        } catch (IOException e) {
            System.err.println("kafka-broker: Cannot read " + log + ": " + e);
        }
    }

    private static void usageError(String message) {
        System.err.println("kafka-broker: " + message);
        System.err.println(USAGE);
        System.exit(2);
    }
}
