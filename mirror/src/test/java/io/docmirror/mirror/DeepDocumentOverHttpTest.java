package io.docmirror.mirror;

import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.layout.ContainerSnapshot;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.StoreConfig;
import io.docmirror.store.StoreException;
import io.docmirror.store.StoreJson;
import io.docmirror.store.http.HttpStoreClient;
import io.docmirror.store.server.StoreHttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A document at the store's nesting limit ({@value StoreJson#MAX_NESTING_DEPTH} levels, the top-level object being
 * level 1) is a valid document: a mirror that follows the store over HTTP ({@code mirror sync --store},
 * {@code mirror run --store}) mirrors it, and the container beside it goes on mirroring.
 */
class DeepDocumentOverHttpTest {
    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir
    Path work;

    private EmbeddedStore store;
    private StoreHttpServer server;
    private HttpStoreClient client;
    private Path mirrorDirectory;

    @BeforeEach
    void serveStore() throws Exception {
        store = EmbeddedStore.open(work.resolve("store"), StoreConfig.defaults().withSyncWrites(false));
        server = StoreHttpServer.start(store, StoreConfig.defaults().withHttp("127.0.0.1", 0));
        client = new HttpStoreClient(server.baseUri(), Optional.empty());
        store.createContainer(ContainerProperties.of("deep", "/pk").withAnalyticalTtl(-1));
        store.createContainer(ContainerProperties.of("orders", "/customerId").withAnalyticalTtl(-1));
        mirrorDirectory = work.resolve("mirror");
    }

    @AfterEach
    void stopStore() {
        server.close();
        store.close();
    }

    @Test
    void theStoreRefusesOneLevelMoreThanTheLimit() {
        assertThatThrownBy(() -> store.createItem("deep", nested("too-deep", StoreJson.MAX_NESTING_DEPTH + 1)))
                .isInstanceOf(StoreException.class)
                .hasMessageContaining("nests deeper than " + StoreJson.MAX_NESTING_DEPTH + " levels");
    }

    @Test
    void syncOverHttpMirrorsADocumentAtTheNestingLimitAndTheContainerBesideIt() throws Exception {
        store.createItem("deep", nested("at-limit", StoreJson.MAX_NESTING_DEPTH));
        store.createItem("deep", "{\"id\":\"flat\",\"pk\":\"a\"}");
        store.createItem("orders", "{\"id\":\"o1\",\"customerId\":\"c1\",\"total\":10}");

        try (FeedMirror mirror = new FeedMirror(client, mirrorDirectory, MirrorConfig.defaults(),
                FlattenerConfig::defaults, Clock.systemUTC())) {
            assertThat(mirror.sync().events()).isEqualTo(3);
        }

        assertThat(MirrorSql.query(mirrorDirectory, "deep", "SELECT id FROM deep ORDER BY id"))
                .containsExactly(List.of("at-limit"), List.of("flat"));
        assertThat(MirrorSql.query(mirrorDirectory, "deep", "SELECT count(*) FROM deep_history WHERE id = 'at-limit' "
                + "AND json_extract(document, '$.id') = '\"at-limit\"'")).containsExactly(List.of(1L));
        assertThat(MirrorSql.query(mirrorDirectory, "orders", "SELECT id, total FROM orders"))
                .containsExactly(List.of("o1", 10L));
    }

    @Test
    void theDaemonOverHttpMirrorsADocumentAtTheNestingLimitAndGoesOn() throws Exception {
        ExecutorService daemon = Executors.newSingleThreadExecutor();
        try (FeedMirror mirror = new FeedMirror(client, mirrorDirectory, MirrorConfig.defaults(),
                FlattenerConfig::defaults, Clock.systemUTC())) {
            Future<?> running = daemon.submit(() -> {
                mirror.run();
                return null;
            });
            store.createItem("orders", "{\"id\":\"o1\",\"customerId\":\"c1\",\"total\":10}");
            store.createItem("deep", nested("at-limit", StoreJson.MAX_NESTING_DEPTH));
            store.createItem("deep", "{\"id\":\"after\",\"pk\":\"a\"}");
            store.createItem("orders", "{\"id\":\"o2\",\"customerId\":\"c2\",\"total\":20}");

            awaitRows(running, "deep", "SELECT id FROM deep ORDER BY id", List.of(List.of("after"),
                    List.of("at-limit")));
            awaitRows(running, "orders", "SELECT id FROM orders ORDER BY id", List.of(List.of("o1"), List.of("o2")));
            mirror.stop();
            running.get(30, TimeUnit.SECONDS);
        } finally {
            daemon.shutdownNow();
        }
    }

    /** Waits until a query on a container's mirror gives {@code expected}, or fails with what it saw last. */
    private void awaitRows(Future<?> daemon, String container, String query, List<List<Object>> expected)
            throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        Object seen = "nothing committed yet";
        while (System.nanoTime() < deadline) {
            if (daemon.isDone()) {
                daemon.get();
                throw new AssertionError("The daemon stopped before " + container + " held " + expected);
            }
            if (ContainerSnapshot.read(mirrorDirectory, container).isPresent()) {
                List<List<Object>> rows = MirrorSql.query(mirrorDirectory, container, query);
                if (rows.equals(expected)) {
                    return;
                }
                seen = rows;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("After " + WAIT + " the mirror of " + container + " gave " + seen + " for " + query
                + ", not " + expected);
    }

    /** A document of {@code levels} levels of nesting: the top-level object and {@code levels - 1} objects in it. */
    private static String nested(String id, int levels) {
        StringBuilder json = new StringBuilder("{\"id\":\"" + id + "\",\"pk\":\"a\",\"n\":");
        json.append("{\"n\":".repeat(levels - 2)).append("{\"leaf\":1}").append("}".repeat(levels - 2)).append('}');
        return json.toString();
    }
}
