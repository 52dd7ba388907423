package io.docmirror.mirror;

import io.docmirror.flatten.FlattenerConfig;
import io.docmirror.mirror.reconcile.Reconciler;
import io.docmirror.store.ContainerProperties;
import io.docmirror.store.EmbeddedStore;
import io.docmirror.store.StoreClient;
import io.docmirror.store.StoreConfig;
import io.docmirror.store.StoreTesting;
import io.docmirror.store.TestingClock;
import io.docmirror.store.http.HttpStoreClient;
import io.docmirror.store.server.StoreHttpServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A container deleted and created again under the same name is a new container: its change log starts again from
 * LSN 1, so its mirror must start again too. The old container's mirror used to stay, and the new container's first
 * changes, at LSNs the old mirror had passed, were never mirrored.
 */
class RecreatedContainerTest {
    @TempDir
    Path work;

    private final TestingClock clock = TestingClock.atEpochSecond(1_700_000_000L);
    private EmbeddedStore store;

    @BeforeEach
    void openStore() {
        store = StoreTesting.openWithClock(work.resolve("store"), clock);
    }

    @AfterEach
    void closeStore() {
        store.close();
    }

    @Test
    void aRecreatedContainerIsMirroredFromItsFirstChangeAndTheOldRowsAreGone() throws Exception {
        store.createContainer(ContainerProperties.of("events", "/pk").withAnalyticalTtl(-1));
        for (int index = 0; index < 3; index++) {
            store.createItem("events", "{\"id\":\"old" + index + "\",\"pk\":\"p\",\"n\":" + index + "}");
        }
        assertThat(sync().events()).isEqualTo(3);

        store.deleteContainer("events");
        store.createContainer(ContainerProperties.of("events", "/pk").withAnalyticalTtl(-1));
        for (int index = 0; index < 5; index++) {
            store.createItem("events", "{\"id\":\"new" + index + "\",\"pk\":\"p\",\"s\":\"x" + index + "\"}");
        }

        assertThat(sync().events()).as("the new container's changes, all of them").isEqualTo(5);
        assertThat(MirrorSql.query(work.resolve("mirror"), "events", "SELECT id FROM events ORDER BY id"))
                .containsExactly(List.of("new0"), List.of("new1"), List.of("new2"), List.of("new3"),
                        List.of("new4"));
        assertThat(MirrorSql.query(work.resolve("mirror"), "events", "SELECT count(*) FROM events_history"))
                .containsExactly(List.of(5L));
        assertThat(new Reconciler(store, work.resolve("mirror"), clock, 5).reconcile("events").exact()).isTrue();
    }

    /**
     * The daemon notices the new container while it streams: before it commits a batch, and when it looks the
     * containers up. It used to keep the old rows and skip the new container's changes up to the old checkpoint until
     * a restart.
     */
    @Test
    void aContainerRecreatedWhileTheDaemonStreamsIsMirroredFromItsFirstChange() throws Exception {
        streamWhileTheContainerIsRecreated(store);
    }

    /** The same through the store's HTTP API ({@code mirror run --store URL}). */
    @Test
    void aContainerRecreatedWhileTheDaemonStreamsOverHttpIsMirroredFromItsFirstChange() throws Exception {
        try (StoreHttpServer server = StoreHttpServer.start(store, StoreConfig.defaults().withHttp("127.0.0.1", 0));
                HttpStoreClient client = new HttpStoreClient(server.baseUri(), Optional.empty())) {
            streamWhileTheContainerIsRecreated(client);
        }
    }

    /** A container deleted while the daemon streams is let go, and the daemon goes on; created again, it is mirrored. */
    @Test
    void aContainerDeletedWhileTheDaemonStreamsIsLetGoAndTheDaemonGoesOn() throws Exception {
        store.createContainer(ContainerProperties.of("events", "/pk").withAnalyticalTtl(-1));
        for (int index = 0; index < 3; index++) {
            store.createItem("events", "{\"id\":\"old" + index + "\",\"pk\":\"p\"}");
        }
        Path mirrorDirectory = work.resolve("mirror");
        FeedMirror daemon = new FeedMirror(store, mirrorDirectory, MirrorConfig.defaults(), FlattenerConfig::defaults,
                Clock.systemUTC());
        Thread thread = FeedMirrorTest.runInBackground(daemon);
        try {
            StoreTesting.await("the container mirrored", Duration.ofSeconds(60), () -> ids(mirrorDirectory),
                    List.of("old0", "old1", "old2")::equals);

            store.deleteContainer("events");
            StoreTesting.await("the daemon lets the deleted container go", Duration.ofSeconds(60),
                    daemon::health, health -> health.stream().noneMatch(one -> one.container().equals("events")));
            assertThat(thread.isAlive()).as("the daemon runs on").isTrue();
            assertThat(ids(mirrorDirectory)).as("its tables as last committed").containsExactly("old0", "old1", "old2");

            store.createContainer(ContainerProperties.of("events", "/pk").withAnalyticalTtl(-1));
            for (int index = 0; index < 2; index++) {
                store.createItem("events", "{\"id\":\"new" + index + "\",\"pk\":\"p\"}");
            }
            StoreTesting.await("the container created again mirrored", Duration.ofSeconds(60),
                    () -> ids(mirrorDirectory), List.of("new0", "new1")::equals);
        } finally {
            FeedMirrorTest.stop(daemon, thread);
        }
    }

    /** Mirrors the container with a daemon reading {@code source} while the container is deleted and created again. */
    private void streamWhileTheContainerIsRecreated(StoreClient source) throws Exception {
        store.createContainer(ContainerProperties.of("events", "/pk").withAnalyticalTtl(-1));
        for (int index = 0; index < 4; index++) {
            store.createItem("events", "{\"id\":\"old" + index + "\",\"pk\":\"p\",\"n\":" + index + "}");
        }
        Path mirrorDirectory = work.resolve("mirror");
        FeedMirror daemon = new FeedMirror(source, mirrorDirectory, MirrorConfig.defaults(), FlattenerConfig::defaults,
                Clock.systemUTC());
        Thread thread = FeedMirrorTest.runInBackground(daemon);
        try {
            StoreTesting.await("the old container mirrored", Duration.ofSeconds(60), () -> ids(mirrorDirectory),
                    List.of("old0", "old1", "old2", "old3")::equals);

            store.deleteContainer("events");
            store.createContainer(ContainerProperties.of("events", "/pk").withAnalyticalTtl(-1));
            // Six changes: LSNs 1 to 4 are at or below the old container's checkpoint, 5 and 6 beyond it.
            for (int index = 0; index < 6; index++) {
                store.createItem("events", "{\"id\":\"new" + index + "\",\"pk\":\"p\",\"s\":\"x" + index + "\"}");
            }
            List<String> seen = StoreTesting.await("exactly the new container's documents mirrored",
                    Duration.ofSeconds(60), () -> ids(mirrorDirectory),
                    List.of("new0", "new1", "new2", "new3", "new4", "new5")::equals);
            System.out.println("mirrored after the container was created again: " + seen);
        } finally {
            FeedMirrorTest.stop(daemon, thread);
        }
        assertThat(new Reconciler(store, mirrorDirectory, clock, 5).reconcile("events").exact())
                .as("the mirror against the new container").isTrue();
    }

    /** The mirrored ids, or what stopped reading them (the tables not there yet, say). */
    static List<String> ids(Path mirrorDirectory) {
        try {
            return MirrorSql.query(mirrorDirectory, "events", "SELECT id FROM events ORDER BY id").stream()
                    .map(row -> (String) row.get(0)).toList();
        } catch (SQLException | RuntimeException e) {
            return List.of("cannot read the mirror: " + e.getMessage());
        }
    }

    private FeedMirror.SyncResult sync() {
        try (FeedMirror mirror = new FeedMirror(store, work.resolve("mirror"), MirrorConfig.defaults(),
                FlattenerConfig::defaults, clock)) {
            return mirror.sync();
        }
    }
}
