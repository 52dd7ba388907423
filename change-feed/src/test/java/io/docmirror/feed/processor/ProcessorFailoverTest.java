package io.docmirror.feed.processor;

import io.docmirror.store.ChildProcesses;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.StoreConfig;
import io.docmirror.store.http.StoreHttpServer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static io.docmirror.feed.processor.ProcessorTesting.await;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two worker processes share a container's feed; one is killed with SIGKILL mid-stream while the store keeps being
 * written. The survivor takes the dead worker's leases once they expire and goes on from its checkpoints: every
 * change is handled at least once, none is skipped.
 */
@Tag("slow")
class ProcessorFailoverTest {
    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path dataDir;

    @Test
    void theSurvivorTakesOverAfterASigkillAndNothingIsSkipped() throws Exception {
        try (EmbeddedStore store = EmbeddedStore.open(dataDir.resolve("store"),
                StoreConfig.defaults().withSyncWrites(false));
                StoreHttpServer server = StoreHttpServer.start(store, StoreConfig.defaults().withHttp("127.0.0.1", 0))) {
            store.createContainer(ContainerProperties.of("orders", "/customer"));
            Path outputA = dataDir.resolve("a.txt");
            Path outputB = dataDir.resolve("b.txt");
            Process a = startWorker(server, "a", outputA);
            Process b = startWorker(server, "b", outputB);
            try {
                await("the workers share the leases", WAIT, () -> ChangeFeedEstimator.estimate(store, "orders",
                        "test", ProcessorOptions.DEFAULT_LEASE_CONTAINER, Clock.systemUTC()).stream()
                        .filter(lag -> "a".equals(lag.owner())).count() == 2);
                write(store, 0, 200);
                await("both workers handle changes", WAIT,
                        () -> lines(outputA).size() > 0 && lines(outputB).size() > 0);
                write(store, 200, 300);
                ChildProcesses.sigkill(a);
                write(store, 300, 500);

                Set<String> expected = ProcessorTesting.allEvents(store, "orders");
                await("every change is handled by one worker or the other", WAIT, () -> {
                    Set<String> handled = new HashSet<>(lines(outputA));
                    handled.addAll(lines(outputB));
                    return handled.containsAll(expected);
                });
                await("b holds every lease", WAIT, () -> ChangeFeedEstimator.estimate(store, "orders", "test",
                        ProcessorOptions.DEFAULT_LEASE_CONTAINER, Clock.systemUTC()).stream()
                        .allMatch(lag -> "b".equals(lag.owner()) && lag.eventsBehind() == 0));
                assertThat(expected).hasSize(500);
            } finally {
                a.destroyForcibly();
                b.destroyForcibly();
            }
        }
    }

    private static void write(EmbeddedStore store, int from, int to) {
        for (int index = from; index < to; index++) {
            store.upsertItem("orders", "{\"id\":\"o" + index + "\",\"customer\":\"c" + (index % 31) + "\"}");
        }
    }

    private static List<String> lines(Path file) {
        try {
            return Files.exists(file) ? Files.readAllLines(file) : List.of();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static Process startWorker(StoreHttpServer server, String workerId, Path output) throws Exception {
        return ChildProcesses.startJava(ProcessorWorker.class.getName(), "started", server.baseUri(), workerId,
                output.toString());
    }

}
