package io.docmirror.mirror;

import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.layout.ContainerSnapshot;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.StoreConfig;
import io.docmirror.store.http.HttpStoreClient;
import io.docmirror.store.server.StoreHttpServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A store served over HTTP that stops and starts again is a retriable failure ({@code SOURCE_UNAVAILABLE}): the daemon
 * reports an outage of the change source, not a failing container, and mirrors on once the store answers.
 */
class StoreOutageTest {
    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path work;

    @Test
    void aStoreThatStopsIsAnOutageTheDaemonWaitsOutAndTheContainerIsNotFailing() throws Exception {
        Path mirrorDirectory = work.resolve("mirror");
        try (EmbeddedStore store = EmbeddedStore.open(work.resolve("store"),
                StoreConfig.defaults().withSyncWrites(false))) {
            store.createContainer(ContainerProperties.of("orders", "/customerId").withAnalyticalTtl(-1));
            store.createItem("orders", "{\"id\":\"o1\",\"customerId\":\"c1\"}");
            StoreHttpServer server = StoreHttpServer.start(store, StoreConfig.defaults().withHttp("127.0.0.1", 0));
            int port = URI.create(server.baseUri()).getPort();
            try (HttpStoreClient client = new HttpStoreClient(server.baseUri(), Optional.empty());
                    FeedMirror daemon = new FeedMirror(client, mirrorDirectory,
                            MirrorConfig.defaults().withBatch(50_000, Duration.ofMillis(10)),
                            FlattenerConfig::defaults, Clock.systemUTC())) {
                Thread thread = FeedMirrorTest.runInBackground(daemon);
                try {
                    await("o1 is mirrored", () -> rows(mirrorDirectory), () -> rows(mirrorDirectory) == 1);

                    server.close();
                    await("the daemon sees the store's outage", () -> health(daemon),
                            () -> health(daemon).sourceUnreachableSince() != 0);
                    assertThat(health(daemon).failure()).as("an outage is not a failing container").isNull();
                    assertThat(health(daemon).failureCode()).isNull();

                    store.createItem("orders", "{\"id\":\"o2\",\"customerId\":\"c2\"}");
                    server = StoreHttpServer.start(store, StoreConfig.defaults().withHttp("127.0.0.1", port));
                    await("o2 is mirrored once the store answers", () -> rows(mirrorDirectory),
                            () -> rows(mirrorDirectory) == 2);
                    await("the outage is over", () -> health(daemon),
                            () -> health(daemon).sourceUnreachableSince() == 0);
                    System.out.println("after the outage: " + health(daemon));
                    assertThat(health(daemon).sourceFailures()).isPositive();
                    assertThat(health(daemon).failure()).isNull();
                } finally {
                    daemon.stop();
                    thread.join(WAIT.toMillis());
                }
            } finally {
                server.close();
            }
        }
    }

    private static MirrorHealth health(FeedMirror daemon) {
        return daemon.health().stream().filter(health -> health.container().equals("orders")).findFirst()
                .orElse(MirrorHealth.healthy("orders"));
    }

    /** How many rows the mirror's root table has now; 0 before its first commit. */
    private static long rows(Path mirrorDirectory) {
        if (ContainerSnapshot.read(mirrorDirectory, "orders").isEmpty()) {
            return 0;
        }
        try {
            return MirrorSql.query(mirrorDirectory, "orders", "SELECT id FROM orders").size();
        } catch (SQLException e) {
            throw new IllegalStateException("Cannot read the mirror of orders", e);
        }
    }

    /** Waits (bounded) until {@code condition} holds, or fails with what {@code seen} gave last. */
    private static void await(String what, Supplier<Object> seen, BooleanSupplier condition) throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("Not within " + WAIT + ": " + what + "; saw " + seen.get());
            }
            Thread.sleep(50);
        }
    }
}
