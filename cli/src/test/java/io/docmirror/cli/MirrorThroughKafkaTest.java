package io.docmirror.cli;

import io.docmirror.feed.kafka.KafkaBroker;
import io.docmirror.store.ChildProcesses;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The commands a user runs to put Kafka between the store and the mirror: {@code store serve --publish-kafka} in one
 * process, {@code mirror sync --source kafka --store URL} in another, against a real broker.
 */
@Tag("slow")
class MirrorThroughKafkaTest {
    @TempDir
    Path dir;

    @Test
    void aMirrorReadsTheStoresChangesFromKafka() throws Exception {
        Path orders = Files.writeString(dir.resolve("orders.jsonl"), "{\"id\":\"o1\",\"c\":\"x\",\"total\":10}\n"
                + "{\"id\":\"o2\",\"c\":\"y\",\"total\":20}\n{\"id\":\"o3\",\"c\":\"x\",\"total\":30}\n");
        Path data = dir.resolve("data");
        assertThat(Docmirror.run("import", "--data", data.toString(), "--container", "orders", "--pk", "/c",
                orders.toString())).isEqualTo(ExitCodes.OK);

        try (KafkaBroker broker = KafkaBroker.start(dir.resolve("kafka"))) {
            Path config = Files.writeString(dir.resolve("config.yaml"),
                    "kafka:\n  bootstrap-servers: " + broker.bootstrapServers() + "\n");
            int port = freePort();
            Process store = ChildProcesses.startJava(Docmirror.class.getName(), "Store API at http://127.0.0.1:"
                    + port + "/containers (data: " + data + "); publishing mirrored containers to Kafka at "
                    + broker.bootstrapServers() + "; Ctrl-C stops it", "store", "serve", "--data", data.toString(),
                    "--port", Integer.toString(port), "--publish-kafka", "--config", config.toString());
            try {
                // The mirror has its own data directory, as on another machine: only the store's API is shared.
                Path mirrorData = dir.resolve("mirror-machine");
                long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                long mirrored = 0;
                while (mirrored < 3 && System.nanoTime() < deadline) {
                    assertThat(Docmirror.run("mirror", "sync", "--data", mirrorData.toString(), "--source", "kafka",
                            "--store", "http://127.0.0.1:" + port, "--config", config.toString()))
                            .isEqualTo(ExitCodes.OK);
                    // Until a sync has mirrored something, there is no table orders.
                    mirrored = query(mirrorData, "SELECT count(*) FROM information_schema.tables "
                            + "WHERE table_name = 'orders'") == 0 ? 0 : query(mirrorData, "SELECT count(*) FROM orders");
                }
                assertThat(query(mirrorData, "SELECT sum(total) FROM orders")).isEqualTo(60);
                assertThat(mirrorData.resolve("store")).doesNotExist();
            } finally {
                store.destroy();
                store.waitFor(30, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void anUnknownSourceIsRefused() {
        assertThat(Docmirror.run("mirror", "sync", "--data", dir.toString(), "--source", "kinesis"))
                .isEqualTo(ExitCodes.USAGE);
        assertThat(dir.resolve("store")).doesNotExist();
    }

    /** One number from a query on the mirror in {@code data}, through docmirror's JDBC driver. */
    static long query(Path data, String sql) throws Exception {
        try (Connection connection = DriverManager.getConnection("jdbc:docmirror:" + data);
             Statement statement = connection.createStatement();
             ResultSet result = statement.executeQuery(sql)) {
            result.next();
            return result.getLong(1);
        }
    }

    private static int freePort() throws Exception {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
