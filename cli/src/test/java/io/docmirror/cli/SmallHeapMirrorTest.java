package io.docmirror.cli;

import io.docmirror.layout.MirrorLayout;
import io.docmirror.sql.SqlConfig;
import io.docmirror.sql.SqlEndpoint;
import io.docmirror.store.BulkOptions;
import io.docmirror.store.BulkResult;
import io.docmirror.store.ChildProcesses;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.StoreConfig;
import io.docmirror.store.StoreTesting;
import io.docmirror.store.server.StoreHttpServer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code mirror run} follows a container whose document index does not fit its heap. Before the index moved to disk
 * the daemon kept every document's row places in a heap map, about 120 bytes a document of one row: 72 MB for the
 * 600,000 documents here, which a 64 MB heap cannot hold (that daemon had shown half of them when this test's five
 * minutes ran out). Now the index lives in RocksDB, and the daemon mirrors the container, then its updates in place,
 * with that heap.
 */
@Tag("slow")
class SmallHeapMirrorTest {
    private static final String CONTAINER = "events";
    private static final int DOCUMENTS = 600_000;
    private static final int UPDATED = 1_000;
    private static final String HEAP = "-Xmx64m";
    private static final Duration WAIT = Duration.ofMinutes(5);

    @TempDir
    Path dir;

    @Test
    void theDaemonMirrorsAContainerWhoseIndexWouldNotFitItsHeap() throws Exception {
        StoreConfig config = StoreConfig.defaults().withSyncWrites(false);
        Path mirrorData = dir.resolve("mirror-machine");
        try (EmbeddedStore store = EmbeddedStore.open(dir.resolve("store"), config);
                StoreHttpServer server = StoreHttpServer.start(store, config.withHttp("127.0.0.1", 0))) {
            store.createContainer(ContainerProperties.of(CONTAINER, "/device").withAnalyticalTtl(-1));
            for (int first = 0; first < DOCUMENTS; first += 5_000) {
                List<byte[]> documents = new ArrayList<>();
                for (int index = first; index < first + 5_000; index++) {
                    documents.add(event(index, index));
                }
                BulkResult written = store.bulkWrite(CONTAINER, documents, BulkOptions.CREATE);
                assertThat(written.failures()).isEmpty();
            }
            int metricsPort = freePort();
            Process daemon = ChildProcesses.startJava(List.of(HEAP), Docmirror.class.getName(),
                    "Metrics (Prometheus): http://127.0.0.1:" + metricsPort + "/metrics",
                    "mirror", "run", "--data", mirrorData.toString(), "--store", server.baseUri(),
                    "--metrics-port", Integer.toString(metricsPort));
            try {
                Path mirror = MirrorLayout.mirrorDirectory(mirrorData);
                long started = System.nanoTime();
                StoreTesting.await("the daemon mirrors every event", WAIT,
                        () -> counts(mirror), counts -> counts.events() == DOCUMENTS);
                System.out.printf("%,d events mirrored with %s in %.1f s%n", DOCUMENTS, HEAP,
                        (System.nanoTime() - started) / 1e9);
                // Updates replace rows in place: the index finds each event's row on disk.
                for (int index = 0; index < UPDATED; index++) {
                    int event = index * (DOCUMENTS / UPDATED);
                    store.upsertItem(CONTAINER, new String(event(event, -event - 1), StandardCharsets.UTF_8));
                }
                StoreTesting.await("the daemon mirrors the updates in place", WAIT, () -> counts(mirror),
                        counts -> counts.equals(new Counts(DOCUMENTS, UPDATED, null)));
                System.out.printf("%,d updates mirrored in place in %.1f s from the start%n", UPDATED,
                        (System.nanoTime() - started) / 1e9);
                assertThat(daemon.isAlive()).as("the daemon with " + HEAP).isTrue();
            } finally {
                daemon.destroy();
                assertThat(daemon.waitFor(60, TimeUnit.SECONDS)).as("the daemon stops").isTrue();
            }
        }
    }

    private static byte[] event(int index, int value) {
        return ("{\"id\":\"e" + index + "\",\"device\":\"d" + index % 1_000 + "\",\"value\":" + value + "}")
                .getBytes(StandardCharsets.UTF_8);
    }

    /** What a SQL user sees: the events, how many of them are updated ones, or why the query failed. */
    private record Counts(long events, long updated, String failure) {
    }

    /**
     * The counts a second from now: a query opens the endpoint, and polling any faster would take the daemon's
     * cores. Before the first commit the table is not there yet, which the failure says.
     */
    private static Counts counts(Path mirror) {
        try {
            Thread.sleep(1_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Counts(0, 0, "interrupted");
        }
        try (SqlEndpoint endpoint = SqlEndpoint.open(mirror, SqlConfig.defaults());
                Connection connection = endpoint.connect();
                Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery("SELECT count(*), count(*) FILTER (WHERE value < 0) FROM "
                        + CONTAINER)) {
            result.next();
            return new Counts(result.getLong(1), result.getLong(2), null);
        } catch (Exception e) {
            return new Counts(0, 0, e.toString());
        }
    }

    private static int freePort() throws Exception {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
