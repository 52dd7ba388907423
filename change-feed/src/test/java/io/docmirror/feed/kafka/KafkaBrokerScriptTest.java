package io.docmirror.feed.kafka;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Runs {@code ./kafka-broker} as a user would (bash, after the build): it prints its bootstrap address on the chosen
 * port, a record goes through it, and SIGTERM stops it with its broker.
 */
@Tag("slow")
class KafkaBrokerScriptTest {
    private static final Duration STARTUP = Duration.ofSeconds(120);
    private static final Pattern BOOTSTRAP = Pattern.compile("Kafka broker at (\\S+) ");

    @TempDir
    Path directory;

    @Test
    void startsOnTheChosenPortsCarriesARecordAndStopsOnSigterm() throws Exception {
        int brokerPort = KafkaBroker.freePort();
        int controllerPort = KafkaBroker.freePort();
        Path data = directory.resolve("broker");
        Process script = new ProcessBuilder("bash", Path.of("..", "kafka-broker").toString(),
                "--port", Integer.toString(brokerPort), "--controller-port", Integer.toString(controllerPort),
                data.toString())
                .redirectErrorStream(true)
                .start();
        ScriptOutput output = new ScriptOutput(script);
        try {
            String bootstrap = output.awaitBootstrapAddress(STARTUP)
                    .orElseThrow(() -> new AssertionError("./kafka-broker printed no bootstrap address within "
                            + STARTUP + " (alive: " + script.isAlive() + "); it printed:\n" + output.text()));
            assertThat(bootstrap).isEqualTo("127.0.0.1:" + brokerPort);

            sendAndReceiveOneRecord(bootstrap);

            List<ProcessHandle> brokerProcesses = script.descendants().toList();
            assertThat(brokerProcesses).as("the broker runs in a child JVM").isNotEmpty();
            script.destroy();
            assertThat(script.waitFor(60, TimeUnit.SECONDS))
                    .as("./kafka-broker exits on SIGTERM; it printed:\n%s", output.text()).isTrue();
            for (ProcessHandle broker : brokerProcesses) {
                broker.onExit().get(30, TimeUnit.SECONDS);
            }
        } finally {
            script.descendants().forEach(ProcessHandle::destroyForcibly);
            script.destroyForcibly();
        }
    }

    @Test
    void refusesABadPortWithAMessage() throws Exception {
        Process script = new ProcessBuilder("bash", Path.of("..", "kafka-broker").toString(), "--port", "http")
                .redirectErrorStream(true)
                .start();
        ScriptOutput output = new ScriptOutput(script);
        assertThat(script.waitFor(60, TimeUnit.SECONDS)).isTrue();
        output.awaitEnd();
        assertThat(script.exitValue()).isEqualTo(2);
        assertThat(output.text()).contains("kafka-broker: Invalid value http for --port: not a number");
    }

    private static void sendAndReceiveOneRecord(String bootstrap) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            admin.createTopics(List.of(new NewTopic("script-test", 1, (short) 1))).all().get(60, TimeUnit.SECONDS);
        }
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName(),
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName()))) {
            producer.send(new ProducerRecord<>("script-test", "k1", "v1")).get(60, TimeUnit.SECONDS);
        }
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.GROUP_ID_CONFIG, "script-test",
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName(),
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName()))) {
            consumer.subscribe(List.of("script-test"));
            List<ConsumerRecord<String, String>> received = new ArrayList<>();
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (received.isEmpty() && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(500)).forEach(received::add);
            }
            assertThat(received).extracting(ConsumerRecord::key, ConsumerRecord::value)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple("k1", "v1"));
        }
    }

    /** The script's output, read as it comes on a thread of its own, so that waiting for a line is a condition. */
    private static final class ScriptOutput {
        private final StringBuilder text = new StringBuilder();
        private final Thread reader;

        ScriptOutput(Process process) {
            reader = new Thread(() -> {
                try (BufferedReader lines = new BufferedReader(
                        new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                    for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                        synchronized (text) {
                            text.append(line).append('\n');
                            text.notifyAll();
                        }
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                } finally {
                    synchronized (text) {
                        text.notifyAll();
                    }
                }
            }, "kafka-broker-output");
            reader.setDaemon(true);
            reader.start();
        }

        /** The address the script printed, or empty when it ended or the time ran out first. */
        Optional<String> awaitBootstrapAddress(Duration timeout) throws InterruptedException {
            long deadline = System.nanoTime() + timeout.toNanos();
            synchronized (text) {
                while (true) {
                    Matcher matcher = BOOTSTRAP.matcher(text);
                    if (matcher.find()) {
                        return Optional.of(matcher.group(1));
                    }
                    long remainingMillis = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                    if (remainingMillis <= 0 || !reader.isAlive()) {
                        return Optional.empty();
                    }
                    text.wait(remainingMillis);
                }
            }
        }

        void awaitEnd() throws InterruptedException {
            reader.join(TimeUnit.SECONDS.toMillis(30));
        }

        String text() {
            synchronized (text) {
                return text.toString();
            }
        }
    }
}
